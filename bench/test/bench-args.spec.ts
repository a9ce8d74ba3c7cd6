import { FULL, parseBenchArgs, USAGE } from '../src/config';

describe("pnpm bench's arguments", () => {
  it('accepts every numeric option its usage line offers, --e2e included', () => {
    const offered = [...USAGE.matchAll(/--([a-z0-9-]+)=[NSR]\b/g)].map((match) => match[1]);
    expect(offered).toEqual(expect.arrayContaining(['e2e', 'messages', 'rate', 'rate-seconds', 'round-timeout-seconds']));
    for (const name of offered) expect(() => parseBenchArgs([`--${name}=7`])).not.toThrow();
    expect(parseBenchArgs(['--e2e=5000']).e2e).toBe(5000);
    expect(parseBenchArgs(['--messages=6000']).e2e).toBe(6000);
  });

  it('reads --name=value and --name value, lists, underscores in numbers, and ignores a bare --', () => {
    const config = parseBenchArgs([
      '--',
      '--quick',
      '--only=e2e-saturation,pull',
      '--systems',
      'mmmq',
      '--backlog=1_000_000',
      '--out=/tmp/b.md',
    ]);
    expect(config).toMatchObject({
      quick: true,
      only: ['e2e-saturation', 'pull'],
      systems: ['mmmq'],
      backlog: 1_000_000,
      out: '/tmp/b.md',
    });
  });

  it('uses the full configuration without --quick', () => {
    expect(parseBenchArgs([])).toMatchObject({ ...FULL, quick: false, only: [], systems: [], out: 'docs/benchmarks.md' });
  });

  it.each([
    [['--e2e=lots'], /--e2e needs a positive integer, got "lots"/],
    [['--rounds=0'], /--rounds needs a positive integer/],
    [['--window=1.5'], /--window needs a positive integer/],
    [['--fast'], /Unknown option '--fast'/],
    [['quick'], /Unexpected argument 'quick'/],
  ])('refuses %j, naming it, with the usage', (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
    expect(() => parseBenchArgs(argv)).toThrow(/pnpm bench \[--quick\]/);
  });
});
