import { TopicPattern } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import type { DiscoveredListener } from './discovered-listener';
import { inspectHandler } from './handler-signature';
import { getListenerMetadata } from './listener.metadata';
import type { MmmqListenerContract } from './mmmq-listener.interface';

/**
 * Finds every listener among the application's providers and controllers: methods decorated with
 * `@MMMQListener`, and objects shaped like `MMMQListener<T>` (a `listens()` and a `handle()` method).
 */
@Injectable()
export class ListenerExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** @throws InvalidListenerError naming the class and method of the first misdeclared listener */
  explore(): DiscoveredListener[] {
    const seen = new Set<object>();
    const found: DiscoveredListener[] = [];
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        this.refuseIfListener(wrapper);
        continue;
      }
      const instance: unknown = wrapper.instance;
      // An alias (`useExisting`) is a second wrapper around the same instance; it must not listen twice.
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      found.push(...this.decoratedMethods(instance, wrapper), ...this.implementedContract(instance, wrapper));
    }
    return found;
  }

  private decoratedMethods(instance: object, wrapper: InstanceWrapper): DiscoveredListener[] {
    // NOTE: for `useFactory` and `useValue` providers `wrapper.metatype` is the factory or null, so the class
    // (and its decorator metadata) is reached through the instance.
    const prototype: object | null = Object.getPrototypeOf(instance);
    const className = classNameOf(instance, wrapper);
    const found: DiscoveredListener[] = [];
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[methodName] as Function;
      const decorations = getListenerMetadata(method);
      if (decorations.length === 0) continue;
      const where = `${className}.${methodName}`;
      if (decorations.length > 1) {
        throw new InvalidListenerError(
          `${where} has ${decorations.length} @MMMQListener decorators; a method can be one listener only, ` +
            `so give each pattern its own method`,
        );
      }
      found.push({
        where,
        defaultName: where,
        options: decorations[0],
        contentType: inspectHandler(prototype as object, methodName, method, where),
        handle: (content, context) => method.call(instance, content, context),
      });
    }
    return found;
  }

  private implementedContract(instance: object, wrapper: InstanceWrapper): DiscoveredListener[] {
    const candidate = instance as Partial<MmmqListenerContract>;
    if (typeof candidate.listens !== 'function' || typeof candidate.handle !== 'function') return [];
    const className = classNameOf(instance, wrapper);
    const where = `${className}.handle`;
    const handle = candidate.handle;
    if (getListenerMetadata(handle).length > 0) {
      throw new InvalidListenerError(
        `${where} is decorated with @MMMQListener in a class that also implements MMMQListener (listens() and ` +
          `handle()); use one style: remove the decorator or the listens() method`,
      );
    }
    const prototype: object = Object.getPrototypeOf(instance) ?? instance;
    return [
      {
        where,
        defaultName: className,
        options: { ...candidate.listenerOptions, pattern: readPattern(candidate as MmmqListenerContract, className) },
        contentType: inspectHandler(prototype, 'handle', handle, where, candidate.contentType),
        handle: (content, context) => handle.call(instance, content, context as never),
      },
    ];
  }

  /** Request-scoped and transient providers have no single instance that could receive pushed messages. */
  private refuseIfListener(wrapper: InstanceWrapper): void {
    const prototype: unknown = wrapper.inject ? undefined : (wrapper.metatype as Function | undefined)?.prototype;
    if (typeof prototype !== 'object' || prototype === null) return;
    const decorated = this.scanner
      .getAllMethodNames(prototype)
      .some((name) => getListenerMetadata((prototype as Record<string, Function>)[name]).length > 0);
    const shaped = typeof Reflect.get(prototype, 'listens') === 'function' && typeof Reflect.get(prototype, 'handle') === 'function';
    if (decorated || shaped) {
      throw new InvalidListenerError(
        `${String(wrapper.name)} has listeners but is request-scoped or transient; listeners must be singletons ` +
          `(the default scope), because pushed messages arrive outside any request`,
      );
    }
  }
}

function readPattern(listener: MmmqListenerContract, className: string): string {
  let pattern: unknown;
  try {
    pattern = listener.listens();
  } catch (error) {
    throw new InvalidListenerError(`${className}.listens() threw: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
  return pattern instanceof TopicPattern ? pattern.value : (pattern as string);
}

/** A plain `useValue` object has no class of its own; its provider token names it better than `Object`. */
function classNameOf(instance: object, wrapper: InstanceWrapper): string {
  const constructorName = (instance.constructor as Function | undefined)?.name;
  return constructorName && instance.constructor !== Object ? constructorName : String(wrapper.name);
}
