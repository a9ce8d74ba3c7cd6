import { ConsoleLogger } from '@nestjs/common';

/**
 * Nest's contexts that describe the application at start-up, about forty lines for the broker: each module
 * initialized (InstanceLoader), each controller and route mapped (RoutesResolver, RouterExplorer).
 */
export const START_UP_MAP_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Nest's console logger, with its start-up map at debug level: shown with `MMMQ_LOG_LEVEL=debug`. */
export class BrokerConsoleLogger extends ConsoleLogger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    // Nest's loggers pass their context last.
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && START_UP_MAP_CONTEXTS.has(context)) this.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}
