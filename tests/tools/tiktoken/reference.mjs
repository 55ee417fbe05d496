// The independent reference for advisor/tokens/token_counter.cc: js-tiktoken, pinned in
// package.json (npm ci --prefix tests/tools/tiktoken).
//
//   node reference.mjs ranks DIR          writes DIR/o200k_base.tiktoken and
//                                         DIR/cl100k_base.tiktoken from the
//                                         rank tables js-tiktoken ships
//   node reference.mjs count OUT FILE...  writes OUT, JSON: for each FILE (as
//                                         given) {"o200k_base": n, "cl100k_base": n},
//                                         the exact token counts of its text
//   node reference.mjs chat OUT FILE...   the same for chat request bodies (JSON
//                                         with "messages"): the prompt tokens a
//                                         server counts, every message's role and
//                                         content plus 3 per message plus 3
//                                         (OpenAI's cookbook)
//   node reference.mjs request [--encoding NAME] OUT FILE...
//                                         the same for request bodies with tools,
//                                         by the budget rule of
//                                         docs/formats.md#token-counts: also
//                                         each tool message's tool_call_id,
//                                         3 + id + name + arguments per tool
//                                         call, and 3 + name + description +
//                                         parameters (compact JSON, as sent)
//                                         per tool offered; with --encoding,
//                                         that encoding's count only
//
// js-tiktoken's table ("bpe_ranks") is lines of "NAME OFFSET TOKEN TOKEN ...":
// base64 tokens whose ranks run from OFFSET up. A .tiktoken file is one
// "TOKEN RANK" a line, in rank order.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import cl100k from "js-tiktoken/ranks/cl100k_base";

const encodings = { o200k_base: o200k, cl100k_base: cl100k };
// SHA-256 of the files OpenAI publishes (tiktoken's openai_public.py,
// expected_hash): the converted tables must be those files, byte for byte.
const published = {
  o200k_base: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
  cl100k_base: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
};

function rankLines(table) {
  const out = [];
  for (const line of table.bpe_ranks.split("\n")) {
    if (!line) continue;
    const [, offset, ...tokens] = line.split(" ");
    const first = Number.parseInt(offset, 10);
    tokens.forEach((token, i) => out.push([first + i, token]));
  }
  out.sort((a, b) => a[0] - b[0]);
  return out.map(([rank, token]) => `${token} ${rank}\n`).join("");
}

const [command, target, ...files] = process.argv.slice(2);
if (command === "ranks" && target) {
  mkdirSync(target, { recursive: true });
  for (const [name, table] of Object.entries(encodings)) {
    const text = rankLines(table);
    const hash = createHash("sha256").update(text).digest("hex");
    if (hash !== published[name]) {
      process.stderr.write(`${name}: converted table has SHA-256 ${hash}, not OpenAI's ${published[name]}\n`);
      process.exit(1);
    }
    writeFileSync(join(target, `${name}.tiktoken`), text);
  }
} else if (command === "count" && target) {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const counters = Object.fromEntries(
    Object.entries(encodings).map(([name, table]) => [name, new Tiktoken(table)]),
  );
  const result = {};
  for (const file of files) {
    // Fatal decoding: a corpus file that is not UTF-8 would be counted on
    // replacement characters here and on raw bytes in C++.
    const text = strict.decode(readFileSync(file));
    result[file] = {};
    for (const [name, counter] of Object.entries(counters)) {
      // "all" and no disallowed: special-token text is ordinary text, as in C++.
      result[file][name] = counter.encode(text, [], []).length;
    }
  }
  writeFileSync(target, JSON.stringify(result, null, 1) + "\n");
} else if (command === "chat" && target) {
  const counters = Object.fromEntries(
    Object.entries(encodings).map(([name, table]) => [name, new Tiktoken(table)]),
  );
  const result = {};
  for (const file of files) {
    const body = JSON.parse(readFileSync(file, "utf-8"));
    result[file] = {};
    for (const [name, counter] of Object.entries(counters)) {
      let tokens = 3;
      for (const message of body.messages) {
        tokens += 3 + counter.encode(message.role, [], []).length +
          counter.encode(message.content, [], []).length;
      }
      result[file][name] = tokens;
    }
  }
  writeFileSync(target, JSON.stringify(result, null, 1) + "\n");
} else if (command === "request" && target) {
  let out = target;
  let inputs = files;
  let chosen = Object.keys(encodings);
  if (target === "--encoding") {
    chosen = [files[0]];
    [out, ...inputs] = files.slice(1);
    if (!(chosen[0] in encodings)) {
      process.stderr.write(`--encoding ${chosen[0]}: not one of ${Object.keys(encodings).join(", ")}\n`);
      process.exit(2);
    }
  }
  const counters = Object.fromEntries(chosen.map((name) => [name, new Tiktoken(encodings[name])]));
  const strict = new TextDecoder("utf-8", { fatal: true });
  const result = {};
  for (const file of inputs) {
    const raw = strict.decode(readFileSync(file));
    const body = JSON.parse(raw);
    result[file] = {};
    for (const [name, counter] of Object.entries(counters)) {
      const t = (text) => counter.encode(text ?? "", [], []).length;
      let tokens = 3;
      for (const message of body.messages) {
        tokens += 3 + t(message.role) + t(message.content);
        if (message.role === "tool") tokens += t(message.tool_call_id);
        for (const call of message.tool_calls ?? []) {
          tokens += 3 + t(call.id) + t(call.function.name) + t(call.function.arguments);
        }
      }
      for (const tool of body.tools ?? []) {
        // The schema's text as sent: its compact form must appear in the body
        // as it is (else this count would be of other text than the server's).
        const parameters = JSON.stringify(tool.function.parameters ?? {});
        if (!raw.includes(parameters)) {
          process.stderr.write(`${file}: tool ${tool.function.name}: its parameters are not sent as compact JSON\n`);
          process.exit(1);
        }
        tokens += 3 + t(tool.function.name) + t(tool.function.description) + t(parameters);
      }
      result[file][name] = tokens;
    }
  }
  writeFileSync(out, JSON.stringify(result, null, 1) + "\n");
} else {
  process.stderr.write("usage: node reference.mjs ranks DIR | count OUT FILE... | chat OUT FILE... | request [--encoding NAME] OUT FILE...\n");
  process.exit(2);
}
