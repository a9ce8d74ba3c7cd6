import { DISPATCHERS_PATH } from '@mmmq/core';
import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { Dispatcher, DispatcherInput, DispatcherUpdate } from '../dispatch/dispatcher';
import type { DispatcherDefinitionJson } from '../format/dispatcher-json';
import { RequestWithRawBody } from './raw-body.reader';
import { BrokerAccessGuard } from './broker-access.guard';
import { Caller } from '../security/caller.decorator';
import { Principal } from '../security/principal';
import { RequiresRole } from '../security/requires-role.decorator';
import { assertMayRegister } from './dispatcher-access';
import { JsonBodyReader } from './json-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Express' and fastify's replies both set their status so. */
interface StatusSetter {
  status(code: number): unknown;
}

/**
 * Runtime management of consumers over HTTP: the {@link Dispatcher} service's rules, its typed errors mapped to
 * 400 / 404 / 409. The bodies are validated there (they are `unknown` JSON here, whatever the parameter types say).
 * A token limited to some consumer ids sees and manages only those (the guard checks the path's, here the body's).
 */
@Controller(DISPATCHERS_PATH)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('consume')
export class DispatchersController {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly body: JsonBodyReader,
  ) {}

  /** The dispatchers the token may act for: every one for a token without `consumers`. */
  @Get()
  list(@Caller() caller: Principal): DispatcherDefinitionJson[] {
    return this.dispatcher.list().filter((dispatcher) => caller.mayActFor(dispatcher.consumerId));
  }

  @Get(':consumerId')
  get(@Param('consumerId') consumerId: string): DispatcherDefinitionJson {
    return this.dispatcher.get(consumerId);
  }

  /**
   * `201` a new consumer; `200` when it exists with the same settings and the body's hosts joined it (competing
   * consumers: replicas of one service register the same consumerId); `409` when it exists with other settings.
   */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ReadsRawBody()
  async create(
    @Req() request: RequestWithRawBody,
    @Res({ passthrough: true }) response: StatusSetter,
    @Caller() caller: Principal,
  ): Promise<DispatcherDefinitionJson> {
    const body = await this.body.read(request);
    assertMayRegister(caller, body);
    const { dispatcher, joined } = await this.dispatcher.add(body as DispatcherInput);
    if (joined) response.status(HttpStatus.OK);
    return dispatcher;
  }

  /** Removes one push host (`{host}` is its URL, encoded: `http%3A%2F%2Fbilling-2%3A8080`); the consumer stays. */
  @Delete(':consumerId/hosts/:host')
  @HttpCode(HttpStatus.NO_CONTENT)
  removeHost(@Param('consumerId') consumerId: string, @Param('host') host: string): Promise<void> {
    return this.dispatcher.removeHost(consumerId, host);
  }

  /** The body holds `host` and `pattern` (and optionally `startFrom`); a `consumerId` in it must match the path. */
  @Put(':consumerId')
  @ReadsRawBody()
  async replace(
    @Param('consumerId') consumerId: string,
    @Req() request: RequestWithRawBody,
    @Caller() caller: Principal,
  ): Promise<DispatcherDefinitionJson> {
    const body = await this.body.read(request);
    assertMayRegister(caller, body, consumerId);
    return this.dispatcher.update(consumerId, body as DispatcherUpdate);
  }

  @Delete(':consumerId')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('consumerId') consumerId: string): Promise<void> {
    return this.dispatcher.remove(consumerId);
  }
}
