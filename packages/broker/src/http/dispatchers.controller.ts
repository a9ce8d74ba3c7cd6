import { DISPATCHERS_PATH, Host, MmmqValidationError } from '@mmmq/core';
import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { DispatcherDefinitionJson, parseConsumerId, parseDispatcherDefinition, toDefinitionJson } from '../dispatch/dispatcher-definition';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { RequestWithRawBody } from '../publish/raw-body.reader';
import { BrokerAccessGuard } from '../security/broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { JsonBodyReader } from './json-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Express' and fastify's replies both set their status so. */
interface StatusSetter {
  status(code: number): unknown;
}

/** Runtime management of consumers; every change is in `dispatchers.json` before it takes effect. */
@Controller(DISPATCHERS_PATH)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('consume')
export class DispatchersController {
  constructor(
    private readonly registry: DispatcherRegistry,
    private readonly subscriptions: SubscriptionContainer,
    private readonly body: JsonBodyReader,
  ) {}

  @Get()
  list(): DispatcherDefinitionJson[] {
    return this.registry.list().map(toDefinitionJson);
  }

  @Get(':consumerId')
  get(@Param('consumerId') consumerId: string): DispatcherDefinitionJson {
    return toDefinitionJson(this.registry.get(parseConsumerId(consumerId)));
  }

  /**
   * `201` a new consumer; `200` when it exists with the same settings and the body's hosts joined it (competing
   * consumers: replicas of one service register the same consumerId); `409` when it exists with other settings.
   */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ReadsRawBody()
  async create(@Req() request: RequestWithRawBody, @Res({ passthrough: true }) response: StatusSetter): Promise<DispatcherDefinitionJson> {
    const definition = parseDispatcherDefinition(await this.body.read(request), 'dispatcher');
    const { stored, joined } = await this.subscriptions.addDispatcher(definition);
    if (joined) response.status(HttpStatus.OK);
    return toDefinitionJson(stored);
  }

  /** Removes one push host (`{host}` is its URL, encoded: `http%3A%2F%2Fbilling-2%3A8080`); the consumer stays. */
  @Delete(':consumerId/hosts/:host')
  @HttpCode(HttpStatus.NO_CONTENT)
  async removeHost(@Param('consumerId') consumerId: string, @Param('host') host: string): Promise<void> {
    await this.subscriptions.removeHost(parseConsumerId(consumerId), Host.parse(host));
  }

  /** The body holds `host` and `pattern` (and optionally `startFrom`); a `consumerId` in it must match the path. */
  @Put(':consumerId')
  @ReadsRawBody()
  async replace(@Param('consumerId') id: string, @Req() request: RequestWithRawBody): Promise<DispatcherDefinitionJson> {
    const consumerId = parseConsumerId(id);
    const body = await this.body.read(request);
    if (typeof body === 'object' && body !== null && 'consumerId' in body && body.consumerId !== consumerId) {
      throw new MmmqValidationError(`consumerId in the body must be ${consumerId}, as in the path`);
    }
    const definition = parseDispatcherDefinition({ ...(body as object), consumerId }, 'dispatcher');
    await this.subscriptions.replaceDispatcher(definition);
    return toDefinitionJson(definition);
  }

  @Delete(':consumerId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('consumerId') consumerId: string): Promise<void> {
    await this.subscriptions.removeDispatcher(parseConsumerId(consumerId));
  }
}
