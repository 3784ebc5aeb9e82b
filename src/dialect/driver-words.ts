/**
 * A database error's own words: the first line of its message, without the statement knex puts
 * before them (`insert into … - database or disk is full`), which may run to hundreds of
 * characters and push the cause out of sight.
 */
export function driverWords(error: unknown): string {
  const message = String((error as Error | null)?.message ?? error).split('\n')[0]!;
  const at = message.lastIndexOf(' - ');
  return at < 0 ? message : message.slice(at + 3);
}
