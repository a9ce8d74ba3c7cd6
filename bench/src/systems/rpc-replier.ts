import path from 'node:path';
import { ManagedProcess, tempDir, track } from '../services';
import type { FromRpcReplier, RpcReplierSettings } from './rpc-replier-protocol';

/** The child's entry, compiled beside this file. */
const REPLIER_MAIN = path.join(__dirname, 'rpc-replier-app.js');
/** Nest, the transport's connection and (MMMQ) the dispatcher's registration. */
const READY_DEADLINE_MS = 60_000;

/**
 * The request-reply workload's replier in a process of its own (`rpc-replier-app.ts`), as a deployed service is:
 * resolves once its microservice listens. Node options for it (`--cpu-prof`) come from `BENCH_REPLIER_NODE_ARGS`.
 */
export async function startRpcReplier(settings: RpcReplierSettings): Promise<ManagedProcess> {
  const dir = tempDir('rpc-replier');
  const managed = track(
    new ManagedProcess(
      'request-reply replier',
      process.execPath,
      [...(process.env.BENCH_REPLIER_NODE_ARGS ?? '').split(' ').filter(Boolean), REPLIER_MAIN],
      path.join(dir, 'replier.log'),
      { ...process.env, BENCH_RPC_SETTINGS: JSON.stringify(settings) },
      dir,
    ),
  );
  const child = managed.start({ ipc: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the replier was not ready within ${READY_DEADLINE_MS} ms`)), READY_DEADLINE_MS);
      child.on('message', (message: FromRpcReplier) => message.kind === 'ready' && (clearTimeout(timer), resolve()));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the replier exited (${signal ?? `code ${code}`}) before it was ready; see ${dir}/replier.log`));
      });
    });
  } catch (error) {
    await managed.stop(10_000);
    throw error;
  }
  return managed;
}
