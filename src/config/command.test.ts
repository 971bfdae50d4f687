import { describe, expect, it } from 'vitest';
import { describeCommand, splitCommand } from './command.ts';

function words(text: string): string[] {
  const result = splitCommand(text);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function failure(text: string): string {
  const result = splitCommand(text);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.message;
}

describe('splitCommand', () => {
  it('separates words on any run of whitespace', () => {
    expect(words('  envoy  -c\t/etc/envoy.yaml\n--log-level info ')).toEqual(['envoy', '-c', '/etc/envoy.yaml', '--log-level', 'info']);
  });

  it('takes a carriage return for whitespace, as a file written on Windows ends its lines', () => {
    expect(words('envoy -c\r\n/etc/envoy.yaml\r')).toEqual(['envoy', '-c', '/etc/envoy.yaml']);
  });

  it('keeps a newline inside double quotes, and the character before it', () => {
    expect(words('printf "a\nb"')).toEqual(['printf', 'a\nb']);
  });

  it('gives no words for an empty or blank string', () => {
    expect(words('')).toEqual([]);
    expect(words(' \t\n')).toEqual([]);
  });

  it('keeps single-quoted text literal, backslashes and double quotes included', () => {
    expect(words(`sh -c 'echo "a\\b" $HOME'`)).toEqual(['sh', '-c', 'echo "a\\b" $HOME']);
  });

  it('honours only \\" \\\\ \\$ \\` inside double quotes', () => {
    expect(words('echo "a \\"b\\" \\\\ \\$x \\` \\n"')).toEqual(['echo', 'a "b" \\ $x ` \\n']);
  });

  it('makes the next character literal after a backslash outside quotes', () => {
    expect(words('echo a\\ b \\"c\\\' \\\\')).toEqual(['echo', 'a b', '"c\'', '\\']);
  });

  it('joins adjacent quoted and unquoted parts into one word', () => {
    expect(words(`a"b c"'d e'f`)).toEqual(['ab cd ef']);
  });

  it('keeps empty quoted words', () => {
    expect(words(`printf '' ""`)).toEqual(['printf', '', '']);
  });

  it('removes backslash-newline (a line continuation) without splitting or adding a word', () => {
    expect(words('envoy \\\n  -c x')).toEqual(['envoy', '-c', 'x']);
    expect(words('ab\\\ncd "e\\\nf"')).toEqual(['abcd', 'ef']);
  });

  it('expands nothing and runs no shell: operators and variables stay literal', () => {
    expect(words('echo $HOME ~ *.txt a|b; c && d # not a comment')).toEqual([
      'echo',
      '$HOME',
      '~',
      '*.txt',
      'a|b;',
      'c',
      '&&',
      'd',
      '#',
      'not',
      'a',
      'comment',
    ]);
  });

  it('reports an unclosed single quote with its position', () => {
    expect(failure(`envoy -c '/etc/envoy.yaml`)).toBe(
      `unbalanced quote: the ' at character 10 is never closed in: envoy -c '/etc/envoy.yaml`,
    );
  });

  it('reports an unclosed double quote with its position, even after an escaped quote', () => {
    expect(failure('echo "a\\"')).toBe('unbalanced quote: the " at character 6 is never closed in: echo "a\\"');
  });

  it('reports a trailing backslash', () => {
    expect(failure('echo a\\')).toMatch(/^a trailing backslash at character 7 escapes nothing/);
  });
});

describe('describeCommand', () => {
  it('writes plain words as they are', () => {
    expect(describeCommand(['envoy', '-c', '/etc/envoy.yaml', '--log=info', 'user@host:8080,x%y+z'])).toBe(
      'envoy -c /etc/envoy.yaml --log=info user@host:8080,x%y+z',
    );
  });

  it('quotes any other word so that a shell reads it back as one word, unexpanded', () => {
    expect(describeCommand(['sh', '-c', 'echo $HOME', 'a b', '', "it's", "it's $x"])).toBe(
      `sh -c 'echo $HOME' 'a b' '' "it's" 'it'\\''s $x'`,
    );
    expect(words(describeCommand(['sh', '-c', 'echo $HOME', 'a b', '', "it's", "it's $x"]))).toEqual([
      'sh',
      '-c',
      'echo $HOME',
      'a b',
      '',
      "it's",
      "it's $x",
    ]);
  });
});
