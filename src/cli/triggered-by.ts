import { userInfo } from 'node:os';

/** `--triggered-by`, or the OS user running the command. */
export function triggeredBy(flag: string | undefined): string {
  if (flag !== undefined) return flag;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
