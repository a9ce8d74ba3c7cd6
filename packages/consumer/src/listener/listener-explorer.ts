import { TopicPattern } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { ListenerContextCreator } from '../handling/listener-context-creator';
import type { DiscoveredListener } from './discovered-listener';
import { inspectHandler } from './handler-signature';
import { getClassListenerMetadata, getListenerMetadata } from './listener.metadata';
import type { MmmqListenerContract } from './mmmq-listener.interface';

/**
 * Finds every listener among the application's providers and controllers: methods decorated with
 * `@MMMQListener`, and classes decorated with it (their `handle()` method). Nothing else is a listener, however
 * it is shaped.
 */
@Injectable()
export class ListenerExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly contexts: ListenerContextCreator,
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
      found.push(...this.decoratedMethods(instance, wrapper), ...this.decoratedClass(instance, wrapper));
    }
    return found;
  }

  private decoratedMethods(instance: object, wrapper: InstanceWrapper): DiscoveredListener[] {
    // NOTE: for `useFactory` and `useValue` providers `wrapper.metatype` is the factory or null, so the class
    // (and its decorator metadata) is reached through the instance.
    const prototype = Object.getPrototypeOf(instance) as object;
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
        contentType: inspectHandler(prototype, methodName, method, where),
        handle: this.contexts.create(instance, method, methodName),
      });
    }
    return found;
  }

  private decoratedClass(instance: object, wrapper: InstanceWrapper): DiscoveredListener[] {
    const prototype = Object.getPrototypeOf(instance) as object;
    const decorations = getClassListenerMetadata(prototype.constructor);
    if (decorations.length === 0) return [];
    const className = classNameOf(instance, wrapper);
    const where = `${className}.handle`;
    const candidate = instance as Partial<MmmqListenerContract>;
    const handle = candidate.handle;
    if (decorations.length > 1) {
      throw new InvalidListenerError(`${className} has ${decorations.length} @MMMQListener decorators; a class can be one listener only`);
    }
    if (typeof handle !== 'function') {
      throw new InvalidListenerError(
        `${className} is decorated with @MMMQListener but has no handle() method; a class listener receives each ` +
          `message in handle(content, context)`,
      );
    }
    if (getListenerMetadata(handle).length > 0) {
      throw new InvalidListenerError(
        `${where} is decorated with @MMMQListener in a class that is decorated with it as well; use one style: ` +
          `remove the decorator from the class or from handle()`,
      );
    }
    return [
      {
        where,
        defaultName: className,
        options: { ...decorations[0], pattern: patternOf(candidate, decorations[0].pattern, className) },
        contentType: inspectHandler(prototype, 'handle', handle, where, candidate.contentType),
        handle: this.contexts.create(instance, handle, 'handle'),
      },
    ];
  }

  /** Request-scoped and transient providers have no single instance that could receive pushed messages. */
  private refuseIfListener(wrapper: InstanceWrapper): void {
    const type = wrapper.inject ? undefined : (wrapper.metatype as Function | undefined);
    const prototype: unknown = type?.prototype;
    if (type === undefined || typeof prototype !== 'object' || prototype === null) return;
    const decorated = this.scanner
      .getAllMethodNames(prototype)
      .some((name) => getListenerMetadata((prototype as Record<string, Function>)[name]).length > 0);
    if (decorated || getClassListenerMetadata(type).length > 0) {
      throw new InvalidListenerError(
        `${String(wrapper.name)} has listeners but is request-scoped or transient; listeners must be singletons ` +
          `(the default scope), because pushed messages arrive outside any request`,
      );
    }
  }
}

/** The decorator's pattern, `listens()`'s, or both when they agree; `**` when neither says. */
function patternOf(listener: Partial<MmmqListenerContract>, decorated: string | undefined, className: string): string | undefined {
  if (typeof listener.listens !== 'function') return decorated;
  let pattern: unknown;
  try {
    pattern = listener.listens();
  } catch (error) {
    throw new InvalidListenerError(`${className}.listens() threw: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  const listened = pattern instanceof TopicPattern ? pattern.value : (pattern as string);
  if (decorated !== undefined && listened !== decorated) {
    throw new InvalidListenerError(
      `${className}: @MMMQListener says ${JSON.stringify(decorated)} but listens() returns ${JSON.stringify(listened)}; ` +
        `they must agree: remove listens() (the decorator is enough) or make both name the same pattern`,
    );
  }
  return listened;
}

/** A plain `useValue` object has no class of its own; its provider token names it better than `Object`. */
function classNameOf(instance: object, wrapper: InstanceWrapper): string {
  const constructorName = (instance.constructor as Function | undefined)?.name;
  return constructorName && instance.constructor !== Object ? constructorName : String(wrapper.name);
}
