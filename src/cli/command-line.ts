import { redactSecrets } from '../text/redact-secrets.ts';

/** The most characters of a command line kept for `job_run_attempts.command`. */
const MAX_COMMAND_LINE = 2000;

/** An argument as a POSIX shell would need it: as it is when it holds only safe characters, else in single quotes. */
function shellQuoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line of this `idem` command, for the attempts it starts (`job_run_attempts.command`):
 * `idem` and its arguments as given, each quoted where a shell would need it, secrets redacted
 * (`text/redact-secrets.ts`), at most 2000 characters.
 * @param argv the arguments after `idem` (what `main` parses).
 */
export function commandLineOf(argv: readonly string[]): string {
  return redactSecrets(['idem', ...argv].map(shellQuoted).join(' ')).slice(0, MAX_COMMAND_LINE);
}
