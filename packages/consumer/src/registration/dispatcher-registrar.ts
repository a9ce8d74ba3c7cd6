import { backoffDelay, sleep } from '@mmmq/core';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { firstValueFrom } from 'rxjs';
import { BrokerRequestError } from '../errors/broker-request.error';
import { DispatcherRegistrationError } from '../errors/dispatcher-registration.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions, ResolvedRegistration } from '../mmmq-consumer-options.resolver';
import { backlogFieldsOf } from './backlog-fields';
import { DispatcherApiClient } from './dispatcher-api.client';
import { ensurePullDispatcher } from './pull-dispatcher';
import { ensurePushDispatcher } from './push-dispatcher';
import { RegistrationStatus } from './registration-status';

/**
 * Makes the broker hold one dispatcher per listener (see ensurePushDispatcher / ensurePullDispatcher), so
 * registering again after a restart changes nothing but telling the broker this host is back. By default in the
 * background, once the application listens: the application starts while the broker is down, and the retries log
 * once per outage (RegistrationStatus, and so the health indicator, tells what is pending and why). With
 * `registration.failFast` at bootstrap, which fails after `attempts` tries.
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
  private background: Promise<void> | undefined;

  constructor(
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions,
    private readonly status: RegistrationStatus,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /**
   * Registers every listener's dispatcher and calls `onRegistered` for each once the broker holds it (at once for
   * all when self-registration is off; with `registration.failFast`, for all once every one is registered). Returns
   * at once unless `registration.failFast` is set.
   * @throws DispatcherRegistrationError with `failFast`, once a listener could not be registered within the allowed attempts
   */
  async registerAll(listeners: readonly ListenerDefinition[], onRegistered: (listener: ListenerDefinition) => void): Promise<void> {
    const registration = this.options.registration;
    this.status.expect(registration === undefined ? [] : listeners);
    if (registration === undefined) return listeners.forEach(onRegistered);
    // Stopping aborts a registration request in flight: a shutdown does not wait for it to time out.
    this.client ??= this.newClient(registration, this.stopped.signal);
    if (!registration.failFast) {
      this.background = this.registerInBackground(this.client, registration, listeners, onRegistered);
      return;
    }
    // All first: a pull loop started before a later listener fails would keep running, as Nest runs no shutdown
    // hooks after a failed bootstrap.
    for (const listener of listeners) await this.registerNow(this.client, registration, listener);
    listeners.forEach(onRegistered);
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
    await this.background;
    const registration = this.options.registration;
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
   * Registers the listeners one after another, each retried with backoff until the broker holds it or answers that
   * retrying cannot help. One warning when the broker cannot be reached, one line when it can again.
   */
  private async registerInBackground(
    client: DispatcherApiClient,
    registration: ResolvedRegistration,
    listeners: readonly ListenerDefinition[],
    onRegistered: (listener: ListenerDefinition) => void,
  ): Promise<void> {
    const { signal } = this.stopped;
    // The broker pushes as soon as it holds the dispatcher: registering before the port is open would only earn
    // refused connections and a backoff on the broker.
    if (registration.advertisedHost !== undefined) await this.listening(signal);
    let failures = 0;
    let outageSince: number | undefined;
    for (const listener of listeners) {
      while (!signal.aborted) {
        try {
          await this.ensure(client, registration, listener);
        } catch (error) {
          if (signal.aborted) return;
          const retrying = error instanceof BrokerRequestError && error.retriable;
          this.status.failed(listener, error, retrying);
          if (!retrying) {
            this.logger.error(
              `Could not register the dispatcher ${listener.consumerId} of ${listener.where} with the broker at ` +
                `${registration.brokerUrl}: ${(error as Error).message}. Retrying cannot help: it stays unregistered ` +
                `(health: down) until the configuration is fixed and the application restarted`,
            );
            break;
          }
          if (outageSince === undefined) {
            outageSince = Date.now();
            this.logger.warn(
              `Could not register the dispatcher ${listener.consumerId} with the broker at ${registration.brokerUrl}: ` +
                `${(error as Error).message}. The application runs on and keeps trying in the background ` +
                `(MmmqConsumerHealthIndicator: down until every dispatcher is registered)`,
            );
          }
          await sleep(backoffDelay(++failures, registration.backoff), signal);
          continue;
        }
        if (outageSince !== undefined) {
          this.logger.log(
            `Reached the broker at ${registration.brokerUrl} again after ${Date.now() - outageSince} ms (${failures} failed tries)`,
          );
          outageSince = undefined;
          failures = 0;
        }
        this.status.succeeded(listener);
        onRegistered(listener);
        break;
      }
    }
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
