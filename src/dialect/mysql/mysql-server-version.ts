import { UsageError } from '../../errors/usage-error.ts';
import type { MysqlFlavour } from './mysql-types.ts';

/** A server version as `SELECT VERSION()` gives it, e.g. `8.0.36` or `10.11.19-MariaDB-0+deb12u1`. */
export interface MysqlServerVersion {
  readonly flavour: MysqlFlavour;
  /** `[major, minor, patch]`. */
  readonly release: readonly [number, number, number];
  /** The text the server sent. */
  readonly text: string;
}

/** The oldest release idem runs on, per flavour, and the feature that sets it. */
interface MinimumRelease {
  readonly release: readonly [number, number, number];
  readonly needs: string;
}

/**
 * The oldest servers idem supports:
 * - MariaDB 10.6: the oldest release series still maintained when idem was written (10.5 reached
 *   its end of life in June 2025, https://mariadb.org/about/#maintenance-policy); the suite runs
 *   on 10.11. Nothing the adapter sends needs more than 10.2 (its NO PAD collation
 *   `utf8mb4_nopad_bin`).
 * - MySQL 8.0.17: the NO PAD binary collation `utf8mb4_0900_bin` every text column uses
 *   (MySQL 8.0.17 release notes, "Character Set Support").
 * Nothing else the adapter sends (`GET_LOCK` with several locks per session, `<=>`,
 * `LOAD DATA LOCAL INFILE`, `datetime(3)`) is newer.
 */
export const MYSQL_MINIMUM_RELEASES: Readonly<Record<MysqlFlavour, MinimumRelease>> = Object.freeze({
  mariadb: Object.freeze({ release: [10, 6, 0] as const, needs: 'a release series still maintained when idem was written' }),
  mysql: Object.freeze({ release: [8, 0, 17] as const, needs: 'the utf8mb4_0900_bin collation' }),
});

const FLAVOUR_NAMES: Readonly<Record<MysqlFlavour, string>> = { mariadb: 'MariaDB', mysql: 'MySQL' };

/**
 * Reads a `SELECT VERSION()` answer. MariaDB names itself in it (the flavour decides the
 * collation's name); the `5.5.5-` that MariaDB before 11 puts in front of its version in the
 * protocol handshake is dropped if present.
 * @returns `undefined` when the text does not start with `major.minor.patch`.
 */
export function parseMysqlServerVersion(text: string): MysqlServerVersion | undefined {
  const flavour: MysqlFlavour = /mariadb/i.test(text) ? 'mariadb' : 'mysql';
  const match = /^(?:5\.5\.5-(?=\d+\.\d+\.\d+-mariadb))?(\d+)\.(\d+)\.(\d+)/i.exec(text);
  if (!match) return undefined;
  return { flavour, release: [Number(match[1]), Number(match[2]), Number(match[3])], text };
}

/** A minimum release as `major.minor`, with `.patch` when the patch is not 0. */
function formatRelease([major, minor, patch]: readonly [number, number, number]): string {
  return patch === 0 ? `${major}.${minor}` : `${major}.${minor}.${patch}`;
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b`. */
function compareReleases(a: readonly number[], b: readonly number[]): number {
  return a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
}

/**
 * Checks the server's `SELECT VERSION()` answer against {@link MYSQL_MINIMUM_RELEASES}.
 * @returns the server's flavour.
 * @throws UsageError (exit 2) naming the version found and the minimum, for an older server or a
 *   version idem cannot read.
 */
export function assertSupportedMysqlServer(text: string): MysqlFlavour {
  const version = parseMysqlServerVersion(text);
  if (!version) {
    throw new UsageError(
      `DATABASE_URL points at a server whose version idem cannot read (got ${JSON.stringify(text)}); idem needs MySQL ${formatRelease(MYSQL_MINIMUM_RELEASES.mysql.release)} or MariaDB ${formatRelease(MYSQL_MINIMUM_RELEASES.mariadb.release)} or newer`,
    );
  }
  const minimum = MYSQL_MINIMUM_RELEASES[version.flavour];
  if (compareReleases(version.release, minimum.release) < 0) {
    const name = FLAVOUR_NAMES[version.flavour];
    throw new UsageError(
      `DATABASE_URL points at ${name} ${version.release.join('.')} (${JSON.stringify(text)}); idem needs ${name} ${formatRelease(minimum.release)} or newer (for ${minimum.needs})`,
    );
  }
  return version.flavour;
}
