// Loaded with `node --import` (NODE_OPTIONS) by test/integration/telemetry.test.ts: appends the URL of
// every OpenTelemetry module the process resolves to the file named by IDEM_TEST_IMPORTS_FILE, so a
// test can tell whether a command loaded the SDK at all. https://nodejs.org/api/module.html#registerhooksoptions
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.IDEM_TEST_IMPORTS_FILE;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (file && resolved.url.includes('/@opentelemetry/')) appendFileSync(file, `${resolved.url}\n`);
    return resolved;
  },
});
