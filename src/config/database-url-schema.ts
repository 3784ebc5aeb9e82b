import { z } from 'zod';

/**
 * A database URL, as `DATABASE_URL` and a SQL source's `IDEM_SOURCES` entry take it: `sqlite:PATH`
 * (relative to the project directory), `postgres://…` / `postgresql://…`, `mysql://…` /
 * `mariadb://…`, `mssql://…` / `sqlserver://…`. Its password is redacted wherever idem prints or
 * stores text (`text/redact-secrets.ts`).
 */
export const DatabaseUrlSchema = z
  .string()
  .regex(
    /^(sqlite:|postgres:\/\/|postgresql:\/\/|mysql:\/\/|mariadb:\/\/|mssql:\/\/|sqlserver:\/\/)/,
    'must start with sqlite:, postgres://, postgresql://, mysql://, mariadb://, mssql:// or sqlserver://',
  )
  .refine(
    (url) => url.startsWith('sqlite:') || URL.canParse(url),
    'is not a valid URL: check its port (a number up to 65535) and that a password with @, / or : in it is percent-encoded',
  );
