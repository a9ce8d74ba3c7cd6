import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { RabbitMqTestNodeError } from './rabbitmq-test-node.error';

/** Where RabbitMQ's own scripts are, when `MMMQ_RABBITMQ_SBIN` does not say. */
const DEFAULT_RABBITMQ_SBIN_CANDIDATES = [
  // Debian/Ubuntu: the real scripts. /usr/sbin/rabbitmq-server there is a wrapper that switches to the `rabbitmq`
  // user and its home (its cookie, /var/lib/rabbitmq), which would not be our node's.
  '/usr/lib/rabbitmq/bin',
];
/** A CLI call (stop_app, join_cluster, quorum_status…) on a busy two-core machine; each starts an Erlang VM. */
export const DEFAULT_RABBITMQ_CLI_TIMEOUT_MS = 60_000;

export type RabbitMqTool = 'rabbitmqctl' | 'rabbitmq-queues' | 'rabbitmq-diagnostics';

/**
 * The directory holding `rabbitmq-server` and `rabbitmqctl`: `MMMQ_RABBITMQ_SBIN`, else the distribution's, else
 * the one of `rabbitmq-server` on the PATH.
 */
export function rabbitMqSbin(): string {
  const configured = process.env.MMMQ_RABBITMQ_SBIN;
  if (configured) {
    if (!existsSync(join(configured, 'rabbitmq-server'))) {
      throw new RabbitMqTestNodeError(`MMMQ_RABBITMQ_SBIN=${configured} holds no rabbitmq-server`);
    }
    return configured;
  }
  for (const candidate of DEFAULT_RABBITMQ_SBIN_CANDIDATES) {
    if (existsSync(join(candidate, 'rabbitmq-server'))) return candidate;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const script = join(dir, 'rabbitmq-server');
    if (dir && existsSync(script)) return dirname(realpathSync(script));
  }
  throw new RabbitMqTestNodeError('rabbitmq-server not found: install RabbitMQ or set MMMQ_RABBITMQ_SBIN to the directory of its scripts');
}

/** Runs `tool -n node args…` with the node's environment (its HOME holds the cluster's cookie); resolves stdout. */
export function runRabbitMqCli(
  tool: RabbitMqTool,
  node: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = DEFAULT_RABBITMQ_CLI_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(join(rabbitMqSbin(), tool), ['-n', node, ...args], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) {
        reject(
          new RabbitMqTestNodeError(`${tool} -n ${node} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`, { cause: error }),
        );
      } else {
        resolve(stdout);
      }
    });
  });
}
