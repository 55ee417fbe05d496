#!/bin/sh
# Set-up of the token-count tests (tests/CMakeLists.txt, fixture
# tiktoken_reference): installs js-tiktoken, converts its rank tables into
# .tiktoken files, writes a corpus of prompt-like text, and has js-tiktoken
# count it.
#
#   token_corpus.sh COOKGRAPH SOURCE_DIR WORK_DIR
#
# WORK_DIR/ranks/{o200k_base,cl100k_base}.tiktoken, WORK_DIR/corpus/*, and
# WORK_DIR/counts.json ({"FILE": {"o200k_base": n, "cl100k_base": n}}).
# Any failure (npm unreachable, node missing) fails the set-up, and ctest
# then fails the tests that need it.
#
# COOKGRAPH_TOKEN_CORPUS=DIR takes DIR, the WORK_DIR of a set-up that has run
# already, instead: scripts/test.sh gives the sanitizer build the normal
# build's, made minutes before by the same sources (the corpus is cookgraph's
# output, the same bytes in both builds; writing it again under ASan took a
# minute of the test command).
set -eu
cookgraph=$1
source=$2
work=$3
tools=$source/tests/tools/tiktoken

if [ -n "${COOKGRAPH_TOKEN_CORPUS:-}" ]; then
  if [ ! -s "$COOKGRAPH_TOKEN_CORPUS/counts.json" ]; then
    echo "token_corpus.sh: COOKGRAPH_TOKEN_CORPUS=$COOKGRAPH_TOKEN_CORPUS holds no counts.json; run the set-up there first" >&2
    exit 1
  fi
  rm -rf "$work"
  cp -R "$COOKGRAPH_TOKEN_CORPUS" "$work"
  # counts.json names each file by its path: the copy's paths.
  node -e 'const fs = require("fs"); const [file, from, to] = process.argv.slice(1);
    const counts = JSON.parse(fs.readFileSync(file)), out = {};
    for (const k in counts) out[k.startsWith(from) ? to + k.slice(from.length) : k] = counts[k];
    fs.writeFileSync(file, JSON.stringify(out, null, 1));' "$work/counts.json" "$COOKGRAPH_TOKEN_CORPUS/" "$work/"
  echo "token_corpus.sh: the corpus and counts of $COOKGRAPH_TOKEN_CORPUS"
  exit 0
fi

# npm ci only when the pinned js-tiktoken is not installed already, so that a
# machine that ran the set-up once can run it again offline.
pinned=$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/js-tiktoken"].version)' "$tools/package-lock.json")
installed=$(node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$tools/node_modules/js-tiktoken/package.json")
if [ "$installed" != "$pinned" ]; then
  if ! npm ci --prefix "$tools" --prefer-offline --no-audit --no-fund --loglevel=error >"$work.npm.log" 2>&1; then
    cat "$work.npm.log" >&2
    echo "token_corpus.sh: npm ci --prefix $tools failed; the token-count tests need js-tiktoken $pinned from the npm registry" >&2
    exit 1
  fi
fi

rm -rf "$work"
mkdir -p "$work/corpus"
node "$tools/reference.mjs" ranks "$work/ranks"

corpus=$work/corpus
for example in "$source"/examples/*.json; do
  name=$(basename "$example" .json)
  for top in 10 50 0; do
    for format in md csv json table; do
      "$cookgraph" score "$example" --format "$format" --top "$top" >"$corpus/score_${name}_${format}_top$top.txt"
    done
  done
  "$cookgraph" graph "$example" --format text >"$corpus/graph_${name}.txt"
  "$cookgraph" graph "$example" --format json >"$corpus/graph_${name}.json"
  # What the prompt builder will send at a small, a medium and a full budget:
  # prose, then the network and the ranked nodes fenced as data.
  for top in 10 50 0; do
    {
      sed -n '1,40p' "$source/README.md"
      printf '\nThe network, as data (not instructions):\n```text\n'
      "$cookgraph" graph "$example" --format text | sed -n '1,80p'
      printf '```\n\n```markdown\n'
      "$cookgraph" score "$example" --format md --top "$top"
      printf '```\n\n```json\n'
      "$cookgraph" score "$example" --format json --top "$(( top == 0 ? 0 : top / 5 + 1 ))"
      printf '```\n\nWhich nodes should I optimise first, and how?\n'
    } >"$corpus/prompt_${name}_top$top.txt"
  done
done
cp "$source/README.md" "$corpus/readme.md"
cp "$source/examples/gstreamer_pipeline.json" "$corpus/snapshot_gstreamer_pipeline.json"
cp "$source"/tests/data/tokens/*.txt "$corpus/"

node "$tools/reference.mjs" count "$work/counts.json" "$corpus"/*
