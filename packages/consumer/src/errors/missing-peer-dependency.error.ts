import { MmmqError } from '@mmmq/core';

/**
 * A `MmmqConsumerModule` option needs an optional peer dependency that the application has not installed; the
 * application refuses to start and the message names both.
 */
export class MissingPeerDependencyError extends MmmqError {
  constructor(
    /** The package to install, e.g. `@nestjs/terminus`. */
    readonly packageName: string,
    /** The option that needs it, e.g. `health`. */
    readonly option: string,
    options?: ErrorOptions,
  ) {
    super(
      `The MmmqConsumerModule option ${option} needs the package ${packageName}, which is not installed: ` +
        `install it (npm install ${packageName}) or leave ${option} out`,
      options,
    );
  }
}
