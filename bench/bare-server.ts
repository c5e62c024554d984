// The API bench's limit: the least a server can do for POST /api/external-register and still
// do the same work as ours. node:http, JSON.parse, the domain's own schema, and the duplicate
// rule as one prepared INSERT ... SELECT ... WHERE NOT EXISTS on the same table: on SQLite
// with WAL and synchronous=FULL; on PostgreSQL in a transaction after the same advisory lock
// as ours, on a pool of the same size. No framework, no logging, no headers but the type.
// Run as `node --import tsx bench/bare-server.ts` with PORT and either BARE_SQLITE_FILE, or
// BARE_POSTGRES_URL (its search_path naming a schema of its own) and BARE_POOL_SIZE.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { parseNotes } from '../src/domain/notes';
import { registrationSchema } from '../src/domain/registration';

const duplicateWindowMs = 24 * 60 * 60 * 1000;
const bodyLimit = 16 * 1024;

// The table and index of src/server/db/migrations/2025-11-21T2130-create-registrations.ts.
const schema = `
  create table if not exists registrations (
    id text primary key, created_at text not null, name text not null, email text,
    phone text not null, notes text not null, marketing_id text, package_key text, source text
  );
  create index if not exists registrations_phone_notes_created_at
    on registrations (phone, notes, created_at);`;
const columns = 'id, created_at, name, email, phone, notes, marketing_id, package_key, source';

/** id, created_at, name, email, phone, notes, marketing_id, package_key, source */
type Row = [string, string, string, ...(string | null)[]] & { 4: string; 5: string };

interface Store {
  /** The new row's id, or the earlier one's when the same sign-up came within 24 hours. */
  register(row: Row, windowStart: string): Promise<string>;
  close(): Promise<void>;
}

function sqliteStore(file: string): Store {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(schema);
  const insert = db.prepare(`
    insert into registrations (${columns})
    select ?, ?, ?, ?, ?, ?, ?, ?, ?
    where not exists (select 1 from registrations where phone = ? and notes = ? and created_at > ?)`);
  // Only a repeat within 24 hours reaches this one; the bench sends none.
  const first = db.prepare(`
    select id from registrations where phone = ? and notes = ? and created_at > ?
    order by created_at limit 1`);
  return {
    async register(row, windowStart) {
      if (insert.run(...row, row[4], row[5], windowStart).changes === 1) return row[0];
      return (first.get(row[4], row[5], windowStart) as { id: string }).id;
    },
    async close() {
      db.close();
    },
  };
}

async function postgresStore(url: string, poolSize: number): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  await pool.query(schema);
  const lock = {
    name: 'bare-lock',
    text: `select pg_advisory_xact_lock(hashtextextended($1::text || ' ' || $2::text, 0))`,
  };
  const insert = {
    name: 'bare-insert',
    text: `insert into registrations (${columns})
      select $1, $2, $3, $4, $5, $6, $7, $8, $9
      where not exists (select 1 from registrations
        where phone = $5 and notes = $6 and created_at > $10)`,
  };
  const first = {
    name: 'bare-first',
    text: `select id from registrations where phone = $1 and notes = $2 and created_at > $3
      order by created_at limit 1`,
  };
  return {
    async register(row, windowStart) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query({ ...lock, values: [row[4], row[5]] });
        const { rowCount } = await client.query({ ...insert, values: [...row, windowStart] });
        const id =
          rowCount === 1
            ? row[0]
            : (
                await client.query<{ id: string }>({
                  ...first,
                  values: [row[4], row[5], windowStart],
                })
              ).rows[0]?.id;
        await client.query('commit');
        if (id === undefined) throw new Error('duplicate sign-up vanished');
        return id;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

async function register(store: Store, text: string): Promise<{ status: number; body: unknown }> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 400, body: { error: 'bad json' } };
  }
  const parsed = registrationSchema.safeParse(json);
  if (!parsed.success) return { status: 400, body: { error: 'invalid' } };
  const input = parsed.data;
  const now = new Date();
  const { packageKey, source } = parseNotes(input.notes);
  const row: Row = [
    randomUUID(),
    now.toISOString(),
    input.name,
    input.email || null,
    input.phone,
    input.notes,
    input.marketing_id ?? null,
    packageKey,
    source,
  ];
  const windowStart = new Date(now.getTime() - duplicateWindowMs).toISOString();
  return { status: 201, body: { id: await store.register(row, windowStart) } };
}

function handler(store: Store) {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === '/health') return send(response, 200, {});
    if (request.method !== 'POST' || request.url !== '/api/external-register') {
      return send(response, 404, { error: 'not found' });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > bodyLimit) {
        send(response, 413, { error: 'too large' });
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (response.headersSent) return;
      register(store, Buffer.concat(chunks).toString('utf8')).then(
        ({ status, body }) => send(response, status, body),
        () => send(response, 500, { error: 'failed' }),
      );
    });
  };
}

const { BARE_SQLITE_FILE, BARE_POSTGRES_URL, BARE_POOL_SIZE = '10' } = process.env;
const store =
  BARE_POSTGRES_URL !== undefined
    ? await postgresStore(BARE_POSTGRES_URL, Number(BARE_POOL_SIZE))
    : BARE_SQLITE_FILE !== undefined
      ? sqliteStore(BARE_SQLITE_FILE)
      : undefined;
if (store === undefined) throw new Error('set BARE_SQLITE_FILE or BARE_POSTGRES_URL');

const server = createServer(handler(store));
server.keepAliveTimeout = 5_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => {
    void store.close().then(() => process.exit(0));
  });
  server.closeIdleConnections();
});
