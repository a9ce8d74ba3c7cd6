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
  /** Consumer ids this application's host is a push member of. */
  private readonly joined: string[] = [];

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

  /**
   * Takes this application's host out of the consumers it joined, so the broker stops pushing to an address that is
   * going away (its other members, or the next instance, carry on). A failure is only logged: the broker then keeps
   * the host and retries it with backoff, as for any host that stopped answering.
   */
  async leaveAll(): Promise<void> {
    const host = this.options.registration?.advertisedHost;
    if (!this.client || host === undefined) return;
    for (const consumerId of this.joined.splice(0)) {
      try {
        await this.client.removeHost(consumerId, host.toUrl());
      } catch (error) {
        this.logger.log(`Could not take ${host.toUrl()} out of dispatcher ${consumerId}: ${(error as Error).message}`);
      }
    }
  }

  /** Releases the keep-alive connections to the broker. */
  close(): void {
    this.client?.close();
  }

  private async register(client: DispatcherApiClient, registration: ResolvedRegistration, listener: ListenerDefinition): Promise<void> {
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
    if (!this.joined.includes(listener.consumerId)) this.joined.push(listener.consumerId);
    const existing = await client.find(listener.consumerId);
    if (existing === undefined || sameSettings(existing, wanted)) {
      // A new consumer, or one whose settings this instance shares (its replicas): the POST creates it, or adds this
      // host to its members (competing consumers), or — already a member — changes nothing. A signed dispatcher is
      // always sent again: that is what ends a subscription's `unauthorized` state once the secrets agree again.
      const member = existing !== undefined && hostsOf(existing).some((host) => host.equals(advertisedHost));
      if (member && signingSecret === undefined) {
        this.logger.log(`Dispatcher ${listener.consumerId} is up to date: ${listener.pattern.value} → ${wanted.host}`);
        return;
      }
      if (await client.create({ consumerId: listener.consumerId, ...wanted })) {
        const what = existing === undefined ? 'registered' : member ? 'registered again' : 'joined by this host';
        this.logger.log(`Dispatcher ${listener.consumerId} ${what}${describeSigning(wanted)}: ${listener.pattern.value} → ${wanted.host}`);
        return;
      }
      // Created meanwhile with other settings, or with another signing secret: the next attempt updates it.
      if (existing === undefined) throw new BrokerRequestError(`${listener.consumerId} was created by someone else meanwhile (409)`, true);
    }
    // Other settings: this instance's win, and the hosts of the other members stay. The start position only matters
    // for topics the dispatcher has not seen yet; keep the broker's unless set.
    const hosts = [...hostsOf(existing), advertisedHost].filter((host, i, all) => all.findIndex((other) => other.equals(host)) === i);
    const { host: _own, ...settings } = wanted;
    await client.replace(listener.consumerId, {
      ...settings,
      hosts: hosts.map((host) => host.toUrl()),
      startFrom: wanted.startFrom ?? existing.startFrom,
    });
    this.logger.log(`Dispatcher ${listener.consumerId} updated${describeSigning(wanted)}: ${listener.pattern.value} → ${hosts.join(', ')}`);
  }
}

function describeSigning(wanted: DispatcherChange): string {
  return wanted.signingSecret === undefined ? '' : ' (signed pushes)';
}

/** The push members a dispatcher shows: `hosts`, or its one `host`; unreadable entries are left out. */
function hostsOf(existing: DispatcherJson): Host[] {
  const shown = existing.hosts ?? (existing.host === undefined ? [] : [existing.host]);
  return shown.flatMap((host) => {
    try {
      return [Host.parse(host)];
    } catch {
      return [];
    }
  });
}

/** The same settings as far as the broker shows them, hosts aside: a signed dispatcher matches in everything but the secret. */
function sameSettings(existing: DispatcherJson, wanted: DispatcherChange): boolean {
  return (
    (existing.patterns ?? [existing.pattern]).length === 1 &&
    existing.pattern === wanted.pattern &&
    (existing.batchSize ?? 1) === wanted.batchSize &&
    (existing.maxInFlight ?? 1) === wanted.maxInFlight &&
    (existing.signed === true) === (wanted.signingSecret !== undefined) &&
    (wanted.startFrom === undefined || existing.startFrom === wanted.startFrom)
  );
}
