import { execFile } from 'node:child_process';

/** The environment for tools run in the fresh application: pnpm's script variables would leak the monorepo into npm. */
export function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_(package|lifecycle|execpath|node_execpath|config_user_agent)|INIT_CWD$|PNPM_)/i.test(name)) continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Runs a command to its end; a failure carries the command's whole output, which is what explains it. */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs: number, env = cleanEnvironment()): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(
          new Error(
            `${command} ${args.join(' ')} (in ${cwd}) failed: ${error.message}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
          ),
        );
      } else {
        resolve(stdout);
      }
    });
  });
}
