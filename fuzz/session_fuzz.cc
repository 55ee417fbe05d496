// Fuzz target: the session file of `ask --session` (docs/formats.md#session-files).
// A bad file is an Error that names the file; a good one reads back from its
// own writing unchanged, byte for byte.
#include "advisor/conversation.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  Result<Session> session = ParseSession(fuzz::Text(data, size), "chat.json");
  if (!session) {
    fuzz::CheckError(session.error());
    return 0;
  }
  const std::string written = SessionJson(*session);
  Result<Session> again = ParseSession(written, "chat.json");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(SessionJson(*again) == written);
  return 0;
}
