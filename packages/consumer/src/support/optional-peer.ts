import { MissingPeerDependencyError } from '../errors/missing-peer-dependency.error';

/**
 * Loads an optional peer dependency only when the option that needs it is on, so an application without the
 * package starts as long as the option is off.
 *
 * @throws MissingPeerDependencyError naming the package and the option when the package cannot be found
 */
export function loadOptionalPeer<T>(packageName: string, option: string, load: (id: string) => unknown = require): T {
  try {
    return load(packageName) as T;
  } catch (error) {
    // Only the package itself missing: a broken install (one of its own imports failing) keeps its own error.
    const code = (error as { code?: unknown }).code;
    const message = (error as Error).message ?? '';
    if (code === 'MODULE_NOT_FOUND' && message.includes(`'${packageName}'`)) {
      throw new MissingPeerDependencyError(packageName, option, { cause: error });
    }
    throw error;
  }
}
