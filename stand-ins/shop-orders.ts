import type { Knex } from 'knex';

/**
 * What `idem prove shop-orders` reads instead of the real shop database: an `orders` table in a
 * throwaway SQLite database (instants as ISO 8601 text in UTC, as idem stores them there) with
 * six orders shipped in the run's range, one at its very start (read) and one at its end (the
 * next date's, not read).
 */
export async function sourceDatabase(db: Knex, range: { businessDate: string; startsAt: string; endsAt: string }): Promise<void> {
  await db.schema.createTable('orders', (table) => {
    table.string('order_id').primary();
    for (const name of ['customer_id', 'country', 'ordered_at', 'shipped_at', 'total']) table.text(name);
    table.integer('line_count');
  });
  const at = (hoursAfterStart: number) => new Date(Date.parse(range.startsAt) + hoursAfterStart * 3_600_000).toISOString();
  const order = (n: number, shippedAt: string) => ({
    order_id: String(900_000 + n), customer_id: n % 3 === 0 ? null : String(17_000 + n), country: n % 2 === 0 ? 'France' : 'United Kingdom',
    ordered_at: at(-20 + n), shipped_at: shippedAt, line_count: n, total: `${(n * 12.345).toFixed(3)}`,
  });
  await db('orders').insert([
    order(1, range.startsAt), order(2, at(2)), order(3, at(5)), order(4, at(9)), order(5, at(15)), order(6, at(20)),
    order(7, range.endsAt), order(8, at(-3)),
  ]);
}
