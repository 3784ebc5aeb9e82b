import { describe, expect, it } from 'vitest';
import { connectionLostReason } from '../../src/db/connection-lost-reason.ts';

// The drivers' shapes of a lost connection (pg's DatabaseError: `code` the SQLSTATE; mysql2 and
// Node: `code` a name), checked without a server because some arrive only under a race: PgBouncer
// sends "server conn crashed?" (08P01) only when it sees the server connection close before the
// backend's own 57P01 reaches the client. test/faults/lock-proof-before-requests.test.ts ends
// that connection for real.
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('connectionLostReason: which errors mean the database connection was lost', () => {
  it("PgBouncer's 08P01 \"server conn crashed?\", any other class 08 code and PostgreSQL's 57P01, behind a LockLostError's cause too", () => {
    expect(connectionLostReason(pgError('08P01', 'server conn crashed?'))).toBe('server conn crashed?');
    expect(connectionLostReason(pgError('08006', 'connection failure'))).toBe('connection failure');
    expect(connectionLostReason(pgError('57P01', 'terminating connection due to administrator command'))).toBe('terminating connection due to administrator command');
    const wrapped = new Error('app lock "idem:x" was lost (server conn crashed?)', { cause: pgError('08P01', 'server conn crashed?') });
    expect(connectionLostReason(wrapped)).toBe('server conn crashed?');
  });

  it("Node's socket errors, mysql2's lost connection and an AggregateError holding one", () => {
    expect(connectionLostReason(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe('read ECONNRESET');
    expect(connectionLostReason(Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' }))).toBe('Connection lost: The server closed the connection.');
    expect(connectionLostReason(new AggregateError([new Error('x'), Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })]))).toBe('connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('a statement the database rejected is no lost connection: a constraint, a serialisation failure, a syntax error, a code that only starts like class 08', () => {
    expect(connectionLostReason(pgError('23505', 'duplicate key value violates unique constraint'))).toBeUndefined();
    expect(connectionLostReason(pgError('40001', 'could not serialize access'))).toBeUndefined();
    expect(connectionLostReason(pgError('42601', 'syntax error at or near "selec"'))).toBeUndefined();
    expect(connectionLostReason(Object.assign(new Error('x'), { code: '0800' }))).toBeUndefined();
    expect(connectionLostReason(Object.assign(new Error('x'), { code: 'ER_DUP_ENTRY', errno: 1062 }))).toBeUndefined();
  });
});
