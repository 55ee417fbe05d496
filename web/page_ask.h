#ifndef COOKGRAPH_WEB_PAGE_ASK_H_
#define COOKGRAPH_WEB_PAGE_ASK_H_

// The page's Ask tab (docs/web.md#asking-from-the-page): the conversation of
// `cookgraph ask --chat` (advisor/conversation.h's TurnDriver: the same
// requests within the same budget, the same functions over the view), whose
// requests the worker sends with the browser's fetch (web/worker.js), one
// question at a time:
//
//   ask_prompt {view, question, history, settings} -> the preview, as POST /prompt
//   ask_start  {view, question, history, settings} -> a step
//   ask_head   {status, content_type}              -> {}   (the response began)
//   ask_feed   {text}                              -> {"text": answer text to show}
//   ask_end    {} | {"failed": "why"} | {"stopped": true} -> a step
//
// A step is {"send": {url, headers, body}, "text", "tools": [{name, arguments}]}
// (the next request; the text held back before the calls; the calls that
// ran), {"done": {nodes, nodes_total, tokens, earlier_left_out, requests,
// tool_calls}, "text"} or {"error": {"message", "stopped"}}: the events of
// the server's POST /ask (docs/commands.md#the-explorers-api).
//
// `settings` are {"base_url", "model", "api_key", "budget_tokens", "persona",
// "tools"}; the API key reaches no reply but the request's headers.

#include "server/explorer.h"
#include "web/call.h"

namespace cookgraph::web {

void AskPrompt(const server::Explorer* explorer, const json& request, Reply& reply);
void AskStart(const server::Explorer* explorer, const json& request, Reply& reply);
void AskHead(const json& request, Reply& reply);
void AskFeed(const json& request, Reply& reply);
void AskEnd(const json& request, Reply& reply);

}  // namespace cookgraph::web

#endif  // COOKGRAPH_WEB_PAGE_ASK_H_
