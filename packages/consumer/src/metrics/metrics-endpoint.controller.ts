import { Controller, Get, HttpStatus, Inject, Res, Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Registry } from 'prom-client';
import { ConsumerEndpoint } from '../support/endpoint-route.check';
import { MMMQ_CONSUMER_METRICS_REGISTRY } from './metrics-registry.token';

/**
 * `GET {path}`: the registry in the Prometheus text format, as the broker's `/metrics`. A class per path, since a
 * controller's path is fixed when it is declared. No guard: the consumer has no tokens of its own; keep the route
 * inside the network Prometheus scrapes from.
 */
export function metricsEndpointController(path: string): Type {
  @Controller(path)
  @ConsumerEndpoint({ option: 'metrics', suggestedPath: 'metrics/consumer' })
  class MmmqConsumerMetricsController {
    constructor(
      @Inject(MMMQ_CONSUMER_METRICS_REGISTRY) private readonly registry: Registry,
      private readonly adapterHost: HttpAdapterHost,
    ) {}

    @Get()
    async scrape(@Res() response: unknown): Promise<void> {
      const body = await this.registry.metrics();
      const adapter = this.adapterHost.httpAdapter;
      adapter.setHeader(response, 'Content-Type', this.registry.contentType);
      adapter.setHeader(response, 'Cache-Control', 'no-store');
      adapter.reply(response, body, HttpStatus.OK);
    }
  }
  return MmmqConsumerMetricsController;
}
