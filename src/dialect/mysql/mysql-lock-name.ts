import { createHash } from 'node:crypto';

/** MySQL 5.7+ rejects user-lock names longer than this (error 3057); MariaDB allows up to 192. */
export const MYSQL_LOCK_NAME_MAX = 64;

/**
 * The server-side name of an app lock. `GET_LOCK` names are server-wide (not per database), so
 * the name carries the database: `idem:online-retail-invoices@etl`. A name longer than 64 bytes
 * becomes `idem:` + the SHA-1 hex of that full name (45 characters), which every MySQL and
 * MariaDB accepts. MySQL compares lock names case-insensitively; hashed names do not collide
 * either way.
 *
 * @example mysqlLockName('etl', 'idem:online-retail-invoices') // 'idem:online-retail-invoices@etl'
 */
export function mysqlLockName(database: string, name: string): string {
  const full = `${name}@${database}`;
  if (Buffer.byteLength(full, 'utf8') <= MYSQL_LOCK_NAME_MAX) return full;
  return `idem:${createHash('sha1').update(full, 'utf8').digest('hex')}`;
}
