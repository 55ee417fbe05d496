#ifndef COOKGRAPH_ADVISOR_REPORT_REPORT_ADVICE_H_
#define COOKGRAPH_ADVISOR_REPORT_REPORT_ADVICE_H_

// Internal to advisor/report/: the LLM's answer, which is Markdown, for the
// reports (docs/commands.md#output-safety). The answer is input like any node
// id (a node name can ask the model to write markup), so it is parsed by
// libcmark (CommonMark's reference library) and defused before it is
// rendered: raw HTML becomes text (a block of it, a code block), a link its
// text followed by its URL as text (only http and https URLs are kept), an
// image its description and URL as text; headings are moved two levels down,
// under the report's own. Control characters but line breaks and tabs become '?'.

#include <string>
#include <string_view>

namespace cookgraph::report_internal {

/// The answer as HTML, rendered by cmark in its safe mode (no
/// CMARK_OPT_UNSAFE): no element from the answer can run or load anything.
std::string AdviceHtml(std::string_view answer);

/// The answer as CommonMark text that renders as AdviceHtml does, holding no
/// raw HTML, link or image (every '<' outside code is backslash-escaped); a
/// fenced block of text in the rare case where cmark's own rendering would
/// not read back that way.
std::string AdviceMarkdown(std::string_view answer);

}  // namespace cookgraph::report_internal

#endif  // COOKGRAPH_ADVISOR_REPORT_REPORT_ADVICE_H_
