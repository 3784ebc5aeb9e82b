// Loaded with `node --import` (NODE_OPTIONS) by a test: appends the URL of every module the process
// resolves (by import or require) whose URL matches the regular expression IDEM_TEST_IMPORTS_MATCH
// to the file named by IDEM_TEST_IMPORTS_FILE, so a test can tell whether a command loaded a module
// at all. https://nodejs.org/api/module.html#registerhooksoptions
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.IDEM_TEST_IMPORTS_FILE;
const match = new RegExp(process.env.IDEM_TEST_IMPORTS_MATCH ?? '(?!)');
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (file && match.test(resolved.url)) appendFileSync(file, `${resolved.url}\n`);
    return resolved;
  },
});
