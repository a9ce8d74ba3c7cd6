import { randomBytes } from 'node:crypto';
import { freePort } from '@mmmq/test-support';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'pg';
import { ExactlyOnceAppModule } from '../src/exactly-once-app.module';
import { DEFAULT_DATABASE_URL, ExactlyOnceConfig } from '../src/exactly-once-config';

/** The PostgreSQL the tests use: .ci/run starts it on 127.0.0.1:5432 (trust auth, database `test`). */
export const TEST_DATABASE_URL = process.env.MMMQ_TEST_DATABASE_URL ?? DEFAULT_DATABASE_URL;

/** A schema name of this test file's own (created by the app at start-up), and a pool to look into it. */
export interface TestSchema {
  name: string;
  pool: Pool;
  /** Every row of the example's table `table` (`orders`, `charges`, `mmmq_outbox`, `mmmq_inbox`). */
  rows<R>(table: string, where?: string, values?: unknown[]): Promise<R[]>;
  /** Drops the schema and ends the pool. */
  drop(): Promise<void>;
}

export function testSchema(): TestSchema {
  const name = `exactly_once_test_${randomBytes(6).toString('hex')}`;
  const pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  return {
    name,
    pool,
    async rows<R>(table: string, where = 'true', values: unknown[] = []) {
      return (await pool.query(`SELECT * FROM "${name}".${table} WHERE ${where}`, values)).rows as R[];
    },
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await pool.end();
    },
  };
}

export interface RunningExample {
  app: INestApplication;
  url: string;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  get(path: string): Promise<{ status: number; body: any }>;
}

/** The example's module in this process, listening on a free port, as main.ts starts it. */
export async function startExample(config: Omit<ExactlyOnceConfig, 'port'>): Promise<RunningExample> {
  const port = await freePort();
  const app = await NestFactory.create(ExactlyOnceAppModule.register({ ...config, port }));
  await app.listen(port, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  return { app, url, post: (path, body) => call('POST', path, body), get: (path) => call('GET', path) };
}
