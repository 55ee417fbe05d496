// Writes the rank files installed with cookgraph (third_party/tiktoken_ranks/README.md):
//
//   node convert.mjs WORK LOCKFILE LICENSE OUT
//
// WORK holds the package.json and node_modules that `npm ci` installed from
// LOCKFILE; OUT gets o200k_base.tiktoken, cl100k_base.tiktoken and LICENSE.
//
// js-tiktoken's table ("bpe_ranks") is lines of "NAME OFFSET TOKEN TOKEN ...":
// base64 tokens whose ranks run from OFFSET up. A .tiktoken file is one
// "TOKEN RANK" a line, in rank order. The result must be OpenAI's published
// file byte for byte: its SHA-256 is checked against the hash tiktoken pins
// (expected_hash in tiktoken_ext/openai_public.py). Any failure is one line on
// standard error, exit 1, and no rank file left in OUT.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const published = {
  o200k_base: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
  cl100k_base: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
};
const outputs = [...Object.keys(published).map((name) => `${name}.tiktoken`), "LICENSE"];

const [work, lockfile, license, out] = process.argv.slice(2);
if (!out) {
  process.stderr.write("usage: node convert.mjs WORK LOCKFILE LICENSE OUT\n");
  process.exit(2);
}

function fail(message) {
  for (const name of outputs) rmSync(join(out, name), { force: true });
  process.stderr.write(`cookgraph: ${message}\n`);
  process.exit(1);
}

function rankLines(table) {
  const ranked = [];
  for (const line of table.bpe_ranks.split("\n")) {
    if (!line) continue;
    const [, offset, ...tokens] = line.split(" ");
    const first = Number.parseInt(offset, 10);
    tokens.forEach((token, i) => ranked.push([first + i, token]));
  }
  ranked.sort((a, b) => a[0] - b[0]);
  return ranked.map(([rank, token]) => `${token} ${rank}\n`).join("");
}

// Written under a temporary name and renamed: a build stopped half-way leaves
// no truncated rank file for cookgraph to find.
function writeAtomically(path, data) {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

const pinned = JSON.parse(readFileSync(lockfile, "utf8")).packages["node_modules/js-tiktoken"];
const require = createRequire(join(work, "package.json"));
let installed;
try {
  // Read as a file: the package's "exports" do not include its package.json.
  installed = JSON.parse(readFileSync(join(work, "node_modules", "js-tiktoken", "package.json"), "utf8"));
} catch {
  fail(`js-tiktoken is not installed in ${work} (npm ci did not run?)`);
}
if (installed.version !== pinned.version || installed.license !== "MIT") {
  fail(`js-tiktoken in ${work} is ${installed.version} (licence ${installed.license}), ` +
       `not the pinned ${pinned.version} (MIT)`);
}

mkdirSync(out, { recursive: true });
for (const [name, hash] of Object.entries(published)) {
  const text = rankLines(require(`js-tiktoken/ranks/${name}`));
  const got = createHash("sha256").update(text).digest("hex");
  if (got !== hash) {
    fail(`${name} converted from js-tiktoken ${installed.version} has SHA-256 ${got}, ` +
         `not that of OpenAI's published ${name}.tiktoken (${hash})`);
  }
  writeAtomically(join(out, `${name}.tiktoken`), text);
}
// js-tiktoken 1.0.21 ships no licence file of its own; should a later one,
// it goes after cookgraph's note and tiktoken's licence.
let notice = readFileSync(license, "utf8");
const own = join(work, "node_modules", "js-tiktoken", "LICENSE");
if (existsSync(own)) notice += `\njs-tiktoken's licence:\n\n${readFileSync(own, "utf8")}`;
writeAtomically(join(out, "LICENSE"), notice);
