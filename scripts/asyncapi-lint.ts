import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';

/**
 * `npm run openapi:lint` runs this too: validates asyncapi.json with the
 * AsyncAPI parser (the AsyncAPI 3 JSON Schema and its Spectral ruleset,
 * offline: the document has no external references). Fails on any error or
 * warning, as the OpenAPI lint does.
 */
const path = fileURLToPath(new URL('../asyncapi.json', import.meta.url));
const { document, diagnostics } = await new Parser().parse(await readFile(path, 'utf8'));
const problems = diagnostics.filter(
  (diagnostic) =>
    diagnostic.severity === DiagnosticSeverity.Error ||
    diagnostic.severity === DiagnosticSeverity.Warning,
);
for (const problem of diagnostics) {
  process.stderr.write(
    `${DiagnosticSeverity[problem.severity]} ${problem.code} at ${problem.path.join('.')}: ${problem.message}\n`,
  );
}
if (!document || problems.length > 0) process.exit(1);
process.stdout.write(
  `asyncapi.json: valid AsyncAPI ${document.version()}, ${document.channels().length} channels\n`,
);
