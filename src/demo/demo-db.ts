import fs from 'node:fs';
import path from 'node:path';

/** The demo back-office database (users, hotel rooms and bookings, stored tool effects). */
export type DemoDatabase = import('better-sqlite3').Database;

/** What the demo tools need from the outside world; injected so tests can use a temp file and a fixed clock. */
export interface DemoDeps {
  db: DemoDatabase;
  /** The current instant; date tools read "today" from it as a UTC date. */
  now: () => Date;
}

/** A row of `users`, as the user tools return it. */
export interface User {
  id: number;
  name: string;
  email: string;
  company: string;
}

/** Reads one user, or `undefined` when the id is unknown. */
export function findUser(db: DemoDatabase, id: number): User | undefined {
  return db.prepare('SELECT id, name, email, company FROM users WHERE id = ?').get(id) as User | undefined;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, company TEXT);
  CREATE TABLE IF NOT EXISTS rooms (id INTEGER PRIMARY KEY, number TEXT, type TEXT, rate_usd REAL);
  CREATE TABLE IF NOT EXISTS bookings (
    id INTEGER PRIMARY KEY, room_id INTEGER REFERENCES rooms(id), check_in TEXT, check_out TEXT, guest TEXT
  );
  CREATE TABLE IF NOT EXISTS tool_effects (idempotency_key TEXT PRIMARY KEY, tool TEXT, result TEXT, created_at TEXT);
`;

// Six Alices and exactly one Bob, so "find Alice" needs a follow-up question and "find Bob" does not.
const USERS: Array<[name: string, company: string]> = [
  ['Alice Johnson', 'Acme Corp'],
  ['Bob Martin', 'Initech'],
  ['Alice Smith', 'Globex'],
  ['Carol Davis', 'Umbrella'],
  ['Alice Williams', 'Hooli'],
  ['David Miller', 'Acme Corp'],
  ['Alice Brown', 'Initech'],
  ['Emma Wilson', 'Globex'],
  ['Frank Moore', 'Stark Industries'],
  ['Alice Garcia', 'Wayne Enterprises'],
  ['Grace Taylor', 'Hooli'],
  ['Henry Anderson', 'Umbrella'],
  ['Alice Nguyen', 'Acme Corp'],
  ['Isabel Thomas', 'Globex'],
  ['James Jackson', 'Initech'],
  ['Karen White', 'Stark Industries'],
  ['Liam Harris', 'Wayne Enterprises'],
  ['Mia Clark', 'Hooli'],
  ['Noah Lewis', 'Umbrella'],
  ['Olivia Walker', 'Acme Corp'],
  ['Paul Hall', 'Globex'],
  ['Quinn Allen', 'Initech'],
  ['Rachel Young', 'Stark Industries'],
  ['Samuel King', 'Wayne Enterprises'],
  ['Tina Wright', 'Hooli'],
  ['Umar Lopez', 'Umbrella'],
  ['Victor Hill', 'Acme Corp'],
  ['Wendy Scott', 'Globex'],
  ['Xavier Green', 'Initech'],
  ['Yara Adams', 'Stark Industries'],
  ['Zoe Baker', 'Wayne Enterprises'],
];

const ROOMS: Array<[number: string, type: string, rateUsd: number]> = [
  ['101', 'single', 120],
  ['102', 'single', 120],
  ['103', 'double', 160],
  ['104', 'double', 160],
  ['201', 'queen', 180],
  ['202', 'king', 210],
  ['301', 'suite', 350],
  ['302', 'family', 260],
];

// [room id, check_in, check_out (exclusive), guest]: busy around Thanksgiving 2026, Hanukkah, Christmas and New Year.
const BOOKINGS: Array<[roomId: number, checkIn: string, checkOut: string, guest: string]> = [
  [8, '2026-11-27', '2026-11-30', 'Grace Hopper'],
  [6, '2026-11-28', '2026-11-29', 'Alan Turing'],
  [1, '2026-12-03', '2026-12-06', 'Ada Lovelace'],
  [3, '2026-12-04', '2026-12-12', 'Edsger Dijkstra'],
  [8, '2026-12-18', '2026-12-21', 'Barbara Liskov'],
  [7, '2026-12-20', '2026-12-27', 'Donald Knuth'],
  [6, '2026-12-24', '2026-12-26', 'Margaret Hamilton'],
  [5, '2026-12-30', '2027-01-02', 'Ken Thompson'],
  [7, '2026-12-31', '2027-01-01', 'Dennis Ritchie'],
  [1, '2027-01-08', '2027-01-10', 'Frances Allen'],
  [2, '2027-01-15', '2027-01-18', 'John McCarthy'],
  [4, '2027-01-16', '2027-01-17', 'Leslie Lamport'],
];

function emailFor(name: string, company: string): string {
  const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return `${name.toLowerCase().replace(/ /g, '.')}@${slug(company)}.example`;
}

function seedWhenEmpty(db: DemoDatabase): void {
  const isEmpty = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n === 0;
  if (isEmpty('users')) {
    const insert = db.prepare('INSERT INTO users (id, name, email, company) VALUES (?, ?, ?, ?)');
    USERS.forEach(([name, company], i) => insert.run(i + 1, name, emailFor(name, company), company));
  }
  if (isEmpty('rooms')) {
    const insert = db.prepare('INSERT INTO rooms (id, number, type, rate_usd) VALUES (?, ?, ?, ?)');
    ROOMS.forEach(([number, type, rate], i) => insert.run(i + 1, number, type, rate));
  }
  if (isEmpty('bookings')) {
    const insert = db.prepare('INSERT INTO bookings (id, room_id, check_in, check_out, guest) VALUES (?, ?, ?, ?, ?)');
    BOOKINGS.forEach((row, i) => insert.run(i + 1, ...row));
  }
}

/**
 * Opens (creating if needed) the demo database at `file`: creates the parent directory, switches to
 * WAL with a 5 s busy timeout, creates missing tables and seeds each table only while it is empty.
 * Schema and seed run in one `BEGIN IMMEDIATE` transaction, so two processes opening the same file at
 * once take turns and the second finds the data already there. Seed data is fixed (no randomness).
 * Throws, saying how to get it, when better-sqlite3 (an optional dependency, needed only by the
 * demo) is not installed or was not built.
 */
export function openDemoDatabase(file: string): DemoDatabase {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const Database = loadSqlite();
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      db.exec(SCHEMA);
      seedWhenEmpty(db);
    }).immediate();
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function loadSqlite(): typeof import('better-sqlite3') {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the demo needs it
    return require('better-sqlite3') as typeof import('better-sqlite3');
  } catch (err) {
    throw new Error(
      `The demo toolkit needs better-sqlite3, an optional dependency that is not usable here (${err instanceof Error ? err.message.split('\n')[0] : String(err)}). ` +
        'Install it with `npm install better-sqlite3` (it builds a native module), or set demo: false in waveloop.config.ts.',
    );
  }
}
