#include "advisor/report/report_advice.h"

#include <cmark.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <vector>

#include "base/text.h"

namespace cookgraph::report_internal {
namespace {

// Never CMARK_OPT_UNSAFE: cmark then drops raw HTML and javascript:, vbscript:,
// file: and data: URLs itself, behind Defuse(), which leaves none of them.
constexpr int kParse = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8;
constexpr int kRender = CMARK_OPT_DEFAULT;

struct FreeNode {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};
using Tree = std::unique_ptr<cmark_node, FreeNode>;

// cmark's renderers return a malloc'd string.
std::string Take(char* rendered) {
  std::string out = rendered == nullptr ? "" : rendered;
  std::free(rendered);
  return out;
}

std::string Literal(cmark_node* node) {
  const char* literal = cmark_node_get_literal(node);
  return literal == nullptr ? "" : literal;
}

cmark_node* NewNode(cmark_node_type type, const std::string& literal) {
  cmark_node* node = cmark_node_new(type);
  cmark_node_set_literal(node, literal.c_str());
  return node;
}

// Only web URLs are worth showing as text; javascript: and the like are dropped.
bool WebUrl(std::string_view url) {
  std::string scheme(url.substr(0, std::min<size_t>(url.size(), 8)));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return scheme.starts_with("http://") || scheme.starts_with("https://");
}

// The nodes of `root` that can run, load or link anything, and the headings.
std::vector<cmark_node*> NodesToDefuse(cmark_node* root) {
  std::vector<cmark_node*> found;
  cmark_iter* it = cmark_iter_new(root);
  for (cmark_event_type event; (event = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    if (event != CMARK_EVENT_ENTER) continue;
    cmark_node* node = cmark_iter_get_node(it);
    switch (cmark_node_get_type(node)) {
      case CMARK_NODE_HTML_BLOCK:
      case CMARK_NODE_HTML_INLINE:
      case CMARK_NODE_LINK:
      case CMARK_NODE_IMAGE:
      case CMARK_NODE_HEADING:
        found.push_back(node);
        break;
      default:
        break;
    }
  }
  cmark_iter_free(it);
  return found;
}

// Replaces `node` by `replacement` and frees it.
void Replace(cmark_node* node, cmark_node* replacement) {
  cmark_node_replace(node, replacement);
  cmark_node_free(node);
}

// Rewrites the tree as the header says. Nodes are changed after the walk (in
// document order: a link's children are moved out before they are visited).
void Defuse(cmark_node* root) {
  for (cmark_node* node : NodesToDefuse(root)) {
    switch (cmark_node_get_type(node)) {
      case CMARK_NODE_HEADING:
        cmark_node_set_heading_level(node, std::min(6, cmark_node_get_heading_level(node) + 2));
        break;
      case CMARK_NODE_HTML_BLOCK:
        Replace(node, NewNode(CMARK_NODE_CODE_BLOCK, Literal(node)));
        break;
      case CMARK_NODE_HTML_INLINE:
        Replace(node, NewNode(CMARK_NODE_TEXT, Literal(node)));
        break;
      default: {  // a link or an image: its text, then its URL as text
        const bool image = cmark_node_get_type(node) == CMARK_NODE_IMAGE;
        const char* url_or_null = cmark_node_get_url(node);
        const std::string url = url_or_null == nullptr ? "" : url_or_null;
        cmark_node* child = cmark_node_first_child(node);
        // An autolink (<https://…>) is its URL already.
        const bool autolink = child != nullptr && cmark_node_next(child) == nullptr &&
                              cmark_node_get_type(child) == CMARK_NODE_TEXT && Literal(child) == url;
        while ((child = cmark_node_first_child(node)) != nullptr) cmark_node_insert_before(node, child);
        std::string after;
        if (WebUrl(url) && !autolink) after = image ? " (image: " + url + ")" : " (" + url + ")";
        if (image && after.empty()) after = " (image)";
        if (after.empty()) {
          cmark_node_unlink(node);
          cmark_node_free(node);
        } else {
          Replace(node, NewNode(CMARK_NODE_TEXT, after));
        }
      }
    }
  }
}

Tree Parse(std::string_view answer) {
  const std::string text = Printable(answer, "\n\t");
  Tree tree(cmark_parse_document(text.data(), text.size(), kParse));
  Defuse(tree.get());
  return tree;
}

// True when the CommonMark text holds no raw HTML, link or image once parsed.
bool Inert(const std::string& markdown) {
  Tree tree(cmark_parse_document(markdown.data(), markdown.size(), kParse));
  for (cmark_node* node : NodesToDefuse(tree.get())) {
    if (cmark_node_get_type(node) != CMARK_NODE_HEADING) return false;
  }
  return true;
}

// The answer fenced as text, with a fence longer than any run of backticks in it.
std::string Fenced(std::string_view answer) {
  const std::string text = Printable(answer, "\n");
  size_t run = 0, longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  return fence + "text\n" + text + (EndsWith(text, "\n") ? "" : "\n") + fence + "\n";
}

}  // namespace

std::string AdviceHtml(std::string_view answer) {
  const Tree tree = Parse(answer);
  return Take(cmark_render_html(tree.get(), kRender));
}

std::string AdviceMarkdown(std::string_view answer) {
  const Tree tree = Parse(answer);
  std::string markdown = Take(cmark_render_commonmark(tree.get(), kRender, 0));
  return Inert(markdown) ? markdown : Fenced(answer);
}

}  // namespace cookgraph::report_internal
