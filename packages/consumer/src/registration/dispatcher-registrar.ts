import { backoffDelay, InProcessBrokerTransport, sleep } from '@mmmq/core';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { firstValueFrom } from 'rxjs';
import { BrokerRequestError } from '../errors/broker-request.error';
import { DispatcherRegistrationError } from '../errors/dispatcher-registration.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import { deliveryOf } from '../listener/listener-delivery';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions, ResolvedRegistration } from '../config/resolved-consumer-options';
import { backlogFieldsOf } from './backlog-fields';
import { DispatcherApiClient } from './dispatcher-api.client';
import { ensurePullDispatcher } from './pull-dispatcher';
import { ensurePushDispatcher } from './push-dispatcher';
import { RegistrationStatus } from './registration-status';

/**
 * Makes the broker hold one dispatcher per listener (see ensurePushDispatcher / ensurePullDispatcher), so
 * registering again after a restart changes nothing but telling the broker this host is back. It is how the MMMQ
 * broker's subscribers (BrokerPushSubscriber, BrokerPullSubscriber) subscribe a listener. Without
 * `registration.failFast`, one listener after another, retried with backoff until the broker answers, once the
 * application listens: the application starts while the broker is down, and the retries log once per outage
 * (RegistrationStatus, and so the health indicator, tells what is pending and why). With `registration.failFast`,
 * a listener fails after `attempts` tries.
 */
@Injectable()
export class DispatcherRegistrar {
  private readonly logger = new Logger('MmmqConsumer');
  private client: DispatcherApiClient | undefined;
  /** Takes this host out at shutdown, after `client`'s requests were aborted. */
  private leaving: DispatcherApiClient | undefined;
  /** Consumer ids this application's host is (or may have become) a push member of. */
  private readonly joined: string[] = [];
  private readonly stopped = new AbortController();
  /** The background registrations, one after another: the last one queued. */
  private queue: Promise<void> = Promise.resolve();
  /** The broker's outage the background registrations are in, shared by them: one warning per outage. */
  private outage: { since: number; failures: number } | undefined;

  constructor(
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions,
    private readonly status: RegistrationStatus,
    private readonly adapterHost: HttpAdapterHost,
    /** Present when this application runs the broker too: it answers only once the application listens. */
    @Optional() private readonly brokerHere?: InProcessBrokerTransport,
  ) {}

  /**
   * Resolves once the broker holds `listener`'s dispatcher (at once when self-registration is off). Without
   * `registration.failFast` it waits for its turn behind the listeners registered before it.
   * @throws DispatcherRegistrationError with `failFast`, once the listener could not be registered within the allowed
   *   attempts; without, once an answer says retrying cannot help, or registration stopped (shutdown)
   */
  register(listener: ListenerDefinition): Promise<void> {
    const registration = this.options.registrations[deliveryOf(listener, this.options)];
    if (registration === undefined) return Promise.resolve();
    // Stopping aborts a registration request in flight: a shutdown does not wait for it to time out.
    const client = (this.client ??= this.newClient(registration, this.stopped.signal));
    if (registration.failFast) return this.registerNow(client, registration, listener);
    const turn = this.queue.then(() => this.registerInBackground(client, registration, listener));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Ends the background registration (aborting its request in flight), then takes this application's host out of
   * the consumers it joined, all at once, so the broker stops pushing to an address that is going away (its other
   * members, or the next instance, carry on); each removal takes at most `registration.timeoutMs`. Not with
   * `registration.leaveOnShutdown: false`. A failure is only logged: the broker then keeps the host and retries it
   * with backoff, as for any host that stopped answering.
   */
  async leaveAll(): Promise<void> {
    this.stopped.abort();
    await this.queue;
    const registration = this.options.registrations.push;
    const host = registration?.advertisedHost;
    const joined = this.joined.splice(0);
    // Replicas sharing one advertisedUrl: the host stays for the others (registration.leaveOnShutdown: false).
    if (registration === undefined || host === undefined || joined.length === 0 || !registration.leaveOnShutdown) return;
    // Not the registration client: its requests are aborted by now.
    this.leaving ??= this.newClient(registration);
    const leaving = this.leaving;
    const results = await Promise.allSettled(joined.map((consumerId) => leaving.removeHost(consumerId, host.toUrl())));
    results.forEach((result, i) => {
      if (result.status === 'rejected') {
        this.logger.log(`Could not take ${host.toUrl()} out of dispatcher ${joined[i]}: ${(result.reason as Error).message}`);
      }
    });
  }

  /** Stops retrying and releases the keep-alive connections to the broker. Idempotent. */
  close(): void {
    this.stopped.abort();
    this.client?.close();
    this.leaving?.close();
  }

  private newClient(registration: ResolvedRegistration, signal?: AbortSignal): DispatcherApiClient {
    return new DispatcherApiClient(registration.brokerUrl, registration.timeoutMs, {
      token: registration.token,
      tls: registration.tls,
      signal,
    });
  }

  private async registerNow(client: DispatcherApiClient, registration: ResolvedRegistration, listener: ListenerDefinition): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ensure(client, registration, listener);
        return this.status.succeeded(listener);
      } catch (error) {
        const retriable = error instanceof BrokerRequestError && error.retriable;
        this.status.failed(listener, error, retriable && attempt < registration.attempts);
        if (!retriable || attempt >= registration.attempts) {
          throw new DispatcherRegistrationError(
            `Could not register the dispatcher ${listener.consumerId} of ${listener.where} with the broker at ` +
              `${registration.brokerUrl} (attempt ${attempt} of ${registration.attempts}): ${(error as Error).message}. ` +
              `The application does not start (registration.failFast); make sure the broker is reachable, leave ` +
              `registration.failFast off to start without it, or set autoRegister: false`,
            { cause: error },
          );
        }
        const delayMs = backoffDelay(attempt, registration.backoff);
        this.logger.warn(`Registering ${listener.consumerId} failed, retrying in ${delayMs} ms: ${(error as Error).message}`);
        await sleep(delayMs, this.stopped.signal);
      }
    }
  }

  /**
   * Registers one listener, retried with backoff until the broker holds it or answers that retrying cannot help.
   * One warning when the broker cannot be reached, one line when it can again.
   */
  private async registerInBackground(
    client: DispatcherApiClient,
    registration: ResolvedRegistration,
    listener: ListenerDefinition,
  ): Promise<void> {
    const { signal } = this.stopped;
    // The broker pushes as soon as it holds the dispatcher: registering before the port is open would only earn
    // refused connections and a backoff on the broker. A broker in this application cannot answer before then either.
    if (registration.advertisedHost !== undefined || this.brokerHere !== undefined) await this.listening(signal);
    while (!signal.aborted) {
      try {
        await this.ensure(client, registration, listener);
      } catch (error) {
        if (signal.aborted) break;
        const retrying = error instanceof BrokerRequestError && error.retriable;
        this.status.failed(listener, error, retrying);
        if (!retrying) {
          throw new DispatcherRegistrationError(
            `Could not register the dispatcher ${listener.consumerId} of ${listener.where} with the broker at ` +
              `${registration.brokerUrl}: ${(error as Error).message}. Retrying cannot help: it stays unregistered ` +
              `(health: down) until the configuration is fixed and the application restarted`,
            { cause: error },
          );
        }
        if (this.outage === undefined) {
          this.outage = { since: Date.now(), failures: 0 };
          this.logger.warn(
            `Could not register the dispatcher ${listener.consumerId} with the broker at ${registration.brokerUrl}: ` +
              `${(error as Error).message}. The application runs on and keeps trying in the background ` +
              `(MmmqConsumerHealthIndicator: down until every dispatcher is registered)`,
          );
        }
        await sleep(backoffDelay(++this.outage.failures, registration.backoff), signal);
        continue;
      }
      if (this.outage !== undefined) {
        this.logger.log(
          `Reached the broker at ${registration.brokerUrl} again after ${Date.now() - this.outage.since} ms ` +
            `(${this.outage.failures} failed tries)`,
        );
        this.outage = undefined;
      }
      return this.status.succeeded(listener);
    }
    throw new DispatcherRegistrationError(`Registering the dispatcher ${listener.consumerId} stopped: the application is shutting down`);
  }

  private async ensure(client: DispatcherApiClient, registration: ResolvedRegistration, listener: ListenerDefinition): Promise<void> {
    const advertisedHost = registration.advertisedHost;
    if (advertisedHost === undefined) return ensurePullDispatcher(client, listener, this.logger);
    const signingSecret = this.options.signing?.secrets[0].reveal();
    const wanted = {
      host: advertisedHost.toUrl(),
      pattern: listener.pattern.value,
      batchSize: registration.batchSize,
      maxInFlight: registration.maxInFlight,
      ...(listener.ordered === false ? { ordered: false } : {}),
      ...(listener.startFrom === undefined ? {} : { startFrom: listener.startFrom }),
      ...(signingSecret === undefined ? {} : { signingSecret }),
      ...(listener.selector === undefined ? {} : { selector: listener.selector }),
      ...backlogFieldsOf(listener),
    };
    // Before the request: a POST whose answer is lost may still have made this host a member.
    if (!this.joined.includes(listener.consumerId)) this.joined.push(listener.consumerId);
    await ensurePushDispatcher(client, listener, wanted, advertisedHost, this.logger);
  }

  /** Resolves once the application's HTTP server listens (or registration stops). */
  private async listening(signal: AbortSignal): Promise<void> {
    if (this.adapterHost.listening || signal.aborted) return;
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([firstValueFrom(this.adapterHost.listen$), stopped]);
  }
}
