#ifndef COOKGRAPH_SERVER_ASK_HOOKS_H_
#define COOKGRAPH_SERVER_ASK_HOOKS_H_

// The explorer's ask box over an OpenAI-compatible endpoint
// (docs/commands.md#cookgraph-serve): each question is the next turn of the
// conversation whose earlier turns the page sends (the server keeps none),
// asked with `ask --chat`'s code (advisor/conversation.h's AskTurn): the same
// requests within the budget, the oldest turns left out first, the functions
// of advisor/tools.h over the view, a server that refuses them asked again
// without and not offered them again.

#include "advisor/settings.h"
#include "server/explorer.h"

namespace cookgraph::server {

/// The hooks for `settings`: `preview` always (a request can be shown with no
/// endpoint); `ask` when an endpoint and a model are configured. The caller
/// sets `not_configured` when they are not. `offer_tools` false offers no functions
/// (as `ask --no-tools`).
AskHooks EndpointAskHooks(const AdvisorSettings& settings, bool offer_tools = true);

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_ASK_HOOKS_H_
