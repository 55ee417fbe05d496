// Fuzz target: the config file (./cookgraph.yaml): llm:, advisor: and watch:
// sections through yaml-cpp. A bad file is an Error and changes nothing.
#include "advisor/settings.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  AdvisorSettings settings;
  const AdvisorSettings before = settings;
  Status status = ApplyConfigText(fuzz::Text(data, size), "cookgraph.yaml", settings);
  if (!status) {
    fuzz::CheckError(status.error());
    FUZZ_CHECK(settings.files_read == before.files_read);
    FUZZ_CHECK(settings.model == before.model);
    FUZZ_CHECK(settings.endpoint.base_url == before.endpoint.base_url);
  }
  return 0;
}
