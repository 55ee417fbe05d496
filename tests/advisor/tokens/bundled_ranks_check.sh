#!/bin/sh
# The rank files installed with cookgraph (third_party/tiktoken_ranks/,
# docs/formats.md#token-counts), checked from outside:
#
#   bundled_ranks_check.sh COOKGRAPH SOURCE_DIR BUILD_DIR
#
#  - BUILD_DIR/share/cookgraph/tiktoken holds o200k_base.tiktoken and
#    cl100k_base.tiktoken with the SHA-256 of OpenAI's published files (the
#    hashes tiktoken pins, written here independently of the build's), and
#    their licence;
#  - `cmake --install` puts the same files under PREFIX/share/cookgraph/tiktoken;
#  - in an empty environment (no HOME, no tiktoken cache, no configuration)
#    `ask --dry-run` counts exactly with o200k_base, and with cl100k_base for
#    gpt-4; with only OPENAI_API_KEY set it shows OpenAI's endpoint.
# Prints what it checked; exits 1 on the first failure, saying what.
set -u
cookgraph=$1
source=$2
build=$3
ranks=$build/share/cookgraph/tiktoken

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

for pair in o200k_base:446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d \
            cl100k_base:223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7; do
  name=${pair%%:*}
  want=${pair#*:}
  [ -f "$ranks/$name.tiktoken" ] || fail "$ranks/$name.tiktoken is missing"
  got=$(sha256sum "$ranks/$name.tiktoken" | cut -d' ' -f1)
  [ "$got" = "$want" ] || fail "$name.tiktoken has SHA-256 $got, not OpenAI's $want"
  echo "ok: $ranks/$name.tiktoken is OpenAI's (SHA-256 $want)"
done
grep -q "MIT License" "$ranks/LICENSE" && grep -q "OpenAI" "$ranks/LICENSE" ||
  fail "$ranks/LICENSE does not hold tiktoken's MIT licence"
echo "ok: $ranks/LICENSE holds tiktoken's MIT licence"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The default component only: the Python module's goes to the interpreter's
# site folder, outside any --prefix.
cmake --install "$build" --prefix "$work/prefix" --component Unspecified >/dev/null ||
  fail "cmake --install $build --prefix $work/prefix failed"
for name in o200k_base.tiktoken cl100k_base.tiktoken LICENSE; do
  cmp -s "$ranks/$name" "$work/prefix/share/cookgraph/tiktoken/$name" ||
    fail "cmake --install did not put $name in PREFIX/share/cookgraph/tiktoken"
done
echo "ok: cmake --install puts them in PREFIX/share/cookgraph/tiktoken"

cd "$work" || exit 1
# Each run: the request's stderr line must say MODEL's encoding, exactly.
dry_run() {
  want=$1
  shift
  env -i HOME=/nonexistent PATH=/usr/bin:/bin "$@" "$cookgraph" ask \
    "$source/examples/touchdesigner_feedback.json" q --dry-run >out.json 2>err.txt ||
    fail "ask --dry-run $*: exit $?: $(cat err.txt)"
  grep -q "counted with $want (installed with cookgraph)" err.txt ||
    fail "ask --dry-run $* did not count with $want (installed with cookgraph): $(cat err.txt)"
  echo "ok: env -i $* cookgraph ask --dry-run counts with $want (installed with cookgraph)"
}
dry_run o200k_base
grep -q '"model":"gpt-4o-mini"' out.json || fail "the dry run's model is not gpt-4o-mini: $(head -c 200 out.json)"
dry_run cl100k_base COOKGRAPH_MODEL=gpt-4
dry_run o200k_base OPENAI_API_KEY=sk-not-a-key
grep -q "https://api.openai.com/v1" err.txt ||
  fail "with only OPENAI_API_KEY set, the dry run does not show OpenAI's endpoint: $(cat err.txt)"
grep -q "sk-not-a-key" err.txt out.json && fail "the dry run shows the key"
echo "ok: with only OPENAI_API_KEY set, the dry run shows https://api.openai.com/v1"
