import { setTimeout as sleep } from 'node:timers/promises';
import { Host } from '@mmmq/core';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BrokerRequestError } from '../errors/broker-request.error';
import { DispatcherRegistrationError } from '../errors/dispatcher-registration.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions, ResolvedRegistration } from '../mmmq-consumer-options.resolver';
import { DispatcherApiClient, DispatcherChange, DispatcherJson } from './dispatcher-api.client';
import { ensurePullDispatcher } from './pull-dispatcher';

/**
 * Makes the broker hold one dispatcher per listener (consumer id, this application's advertised URL, the
 * listener's pattern): created when absent, updated when the URL or pattern changed, left alone when equal,
 * so registering again after a restart changes nothing.
 */
@Injectable()
export class DispatcherRegistrar {
  private readonly logger = new Logger('MmmqConsumer');
  private client: DispatcherApiClient | undefined;

  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions) {}

  /** @throws DispatcherRegistrationError once a listener could not be registered within the allowed attempts */
  async registerAll(listeners: readonly ListenerDefinition[]): Promise<void> {
    const registration = this.options.registration;
    if (registration === undefined) return;
    this.client ??= new DispatcherApiClient(registration.brokerUrl, registration.timeoutMs, {
      token: registration.token,
      tls: registration.tls,
    });
    for (const listener of listeners) await this.register(this.client, registration, listener);
  }

  /** Releases the keep-alive connections to the broker. */
  close(): void {
    this.client?.close();
  }

  private async register(
    client: DispatcherApiClient,
    registration: ResolvedRegistration,
    listener: ListenerDefinition,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ensure(client, registration, listener);
      } catch (error) {
        const retriable = error instanceof BrokerRequestError && error.retriable;
        if (!retriable || attempt >= registration.attempts) {
          throw new DispatcherRegistrationError(
            `Could not register the dispatcher ${listener.consumerId} of ${listener.where} with the broker at ` +
              `${registration.brokerUrl} (attempt ${attempt} of ${registration.attempts}): ${(error as Error).message}. ` +
              `The application does not start; make sure the broker is reachable, or set autoRegister: false`,
            { cause: error },
          );
        }
        const delayMs = registration.backoffMs * 2 ** (attempt - 1);
        this.logger.warn(`Registering ${listener.consumerId} failed, retrying in ${delayMs} ms: ${(error as Error).message}`);
        await sleep(delayMs);
      }
    }
  }

  private async ensure(client: DispatcherApiClient, registration: ResolvedRegistration, listener: ListenerDefinition): Promise<void> {
    const advertisedHost = registration.advertisedHost;
    if (advertisedHost === undefined) return ensurePullDispatcher(client, listener, this.logger);
    const signingSecret = this.options.signing?.secrets[0].reveal();
    const wanted: DispatcherChange = {
      host: advertisedHost.toUrl(),
      pattern: listener.pattern.value,
      batchSize: registration.batchSize,
      maxInFlight: registration.maxInFlight,
      ...(listener.startFrom === undefined ? {} : { startFrom: listener.startFrom }),
      ...(signingSecret === undefined ? {} : { signingSecret }),
    };
    const existing = await client.find(listener.consumerId);
    if (existing === undefined) {
      if (await client.create({ consumerId: listener.consumerId, ...wanted })) {
        this.logger.log(`Dispatcher ${listener.consumerId} registered${describeSigning(wanted)}: ${listener.pattern.value} → ${wanted.host}`);
        return;
      }
      // Another instance of this application created it in the meantime; the next attempt compares with it.
      throw new BrokerRequestError(`${listener.consumerId} was created by someone else meanwhile (409)`, true);
    }
    const same = matches(existing, wanted, advertisedHost);
    // The broker never shows a secret, so a signed dispatcher is always sent again: a no-op on the broker if the
    // secret is the same, and what ends a subscription's `unauthorized` state once the secrets agree again.
    if (same && signingSecret === undefined) {
      this.logger.log(`Dispatcher ${listener.consumerId} is up to date: ${listener.pattern.value} → ${wanted.host}`);
      return;
    }
    // The start position only matters for topics the dispatcher has not seen yet; keep the broker's unless set.
    await client.replace(listener.consumerId, { ...wanted, startFrom: wanted.startFrom ?? existing.startFrom });
    const change = same ? 'registered again' : 'updated';
    this.logger.log(`Dispatcher ${listener.consumerId} ${change}${describeSigning(wanted)}: ${listener.pattern.value} → ${wanted.host}`);
  }
}

function describeSigning(wanted: DispatcherChange): string {
  return wanted.signingSecret === undefined ? '' : ' (signed pushes)';
}

/** Equal as far as the broker shows: a signed dispatcher matches in everything but the secret. */
function matches(existing: DispatcherJson, wanted: DispatcherChange, host: Host): boolean {
  let existingHost: Host;
  try {
    existingHost = Host.parse(existing.host);
  } catch {
    return false;
  }
  return (
    existingHost.equals(host) &&
    existing.pattern === wanted.pattern &&
    (existing.batchSize ?? 1) === wanted.batchSize &&
    (existing.maxInFlight ?? 1) === wanted.maxInFlight &&
    (existing.signed === true) === (wanted.signingSecret !== undefined) &&
    (wanted.startFrom === undefined || existing.startFrom === wanted.startFrom)
  );
}
