import { DispatcherDefinition } from './dispatcher-definition';
import { DispatcherNotFoundError, DuplicateConsumerIdError } from './dispatcher.errors';
import { DispatchersFile, InvalidDispatchersFileError } from './dispatchers-file';
import { PushTargetPolicy } from './push-target-policy';

/**
 * The dispatchers in force, in file order. Every change is written to `dispatchers.json` first; memory only
 * changes once the file is durable, so a failed write changes nothing.
 */
export class DispatcherRegistry {
  private definitions: DispatcherDefinition[] = [];

  constructor(
    private readonly file: DispatchersFile,
    private readonly targets: PushTargetPolicy = new PushTargetPolicy(),
  ) {}

  /**
   * Loads the file, then adds or replaces the dispatchers given in code (code wins) and saves the result. An
   * entry of the file whose host the push-target policy refuses fails the load, naming the entry.
   */
  async load(inCode: readonly DispatcherDefinition[]): Promise<void> {
    const fromFile = await this.file.load();
    fromFile.forEach((definition, i) => {
      if (inCode.some((given) => given.consumerId === definition.consumerId)) return;
      for (const host of definition.hosts) {
        const refusal = this.targets.refusalOfHost(host);
        if (refusal) {
          throw new InvalidDispatchersFileError(
            `${this.file.path} entry ${i} (${definition.consumerId}): host ${host} is refused: ${refusal}`,
          );
        }
      }
    });
    if (inCode.length === 0) {
      this.definitions = fromFile;
      return;
    }
    const merged = [...fromFile];
    for (const definition of inCode) {
      const at = merged.findIndex((existing) => existing.consumerId === definition.consumerId);
      if (at >= 0) merged[at] = definition;
      else merged.push(definition);
    }
    await this.file.save(merged);
    this.definitions = merged;
  }

  list(): readonly DispatcherDefinition[] {
    return this.definitions;
  }

  find(consumerId: string): DispatcherDefinition | undefined {
    return this.definitions.find((definition) => definition.consumerId === consumerId);
  }

  get(consumerId: string): DispatcherDefinition {
    const definition = this.find(consumerId);
    if (!definition) throw new DispatcherNotFoundError(consumerId);
    return definition;
  }

  async add(definition: DispatcherDefinition): Promise<void> {
    if (this.find(definition.consumerId)) throw new DuplicateConsumerIdError(definition.consumerId);
    await this.commit([...this.definitions, definition]);
  }

  /** Replaces in place (file order is kept) and returns the previous definition. */
  async replace(definition: DispatcherDefinition): Promise<DispatcherDefinition> {
    const previous = this.get(definition.consumerId);
    await this.commit(this.definitions.map((existing) => (existing === previous ? definition : existing)));
    return previous;
  }

  async remove(consumerId: string): Promise<DispatcherDefinition> {
    const previous = this.get(consumerId);
    await this.commit(this.definitions.filter((existing) => existing !== previous));
    return previous;
  }

  private async commit(next: DispatcherDefinition[]): Promise<void> {
    await this.file.save(next);
    this.definitions = next;
  }
}
