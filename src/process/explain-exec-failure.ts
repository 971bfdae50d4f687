import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ProcessUser } from '../plan/plan.ts';
import { EXIT_NOT_EXECUTABLE, EXIT_NOT_FOUND } from '../plan/exit-status.ts';

// Explains why execve failed for a file that resolveProgram found executable.
// Node reports that failure only asynchronously and without the reason, while
// the Spawner must answer synchronously. By far the most common cause in a
// container is a missing interpreter: a script whose #! names a program the
// image lacks, or a binary linked against a libc the image does not have (a
// glibc build on Alpine fails with "no such file or directory" for a file that
// plainly exists). execve returns ENOENT for both, so shells report 127; bash
// says "cannot execute: required file not found".

export interface ExecFailure {
  readonly code: typeof EXIT_NOT_FOUND | typeof EXIT_NOT_EXECUTABLE;
  readonly reason: string;
}

/** Enough for a #! line (Linux reads at most 256 bytes of it) and an ELF header. */
const HEAD_BYTES = 256;
const ELF_MAGIC = '\x7fELF';
const PT_INTERP = 3;
/** A loader path is short; the bound keeps a corrupt header from making us read megabytes. */
const MAX_INTERPRETER_BYTES = 4096;

export function explainExecFailure(path: string, cwd: string, user?: ProcessUser): ExecFailure {
  const interpreter = readInterpreter(path);
  if (interpreter !== undefined && !existsSync(resolve(cwd, interpreter.path))) {
    return {
      code: EXIT_NOT_FOUND,
      reason: `cannot execute ${path}: its interpreter ${interpreter.path} (${interpreter.source}) does not exist`,
    };
  }
  // resolveProgram checked the file as sidecar-init (root), not as the user the child becomes.
  if (user !== undefined) {
    const who = `${user.uid === undefined ? '' : `uid ${user.uid} `}gid ${user.gid}`;
    return {
      code: EXIT_NOT_EXECUTABLE,
      reason:
        `cannot execute ${path} as ${who}: the system refused (that user needs execute permission on it and search ` +
        'permission on each directory above it; in a user namespace the ids must be mapped)',
    };
  }
  return { code: EXIT_NOT_EXECUTABLE, reason: `cannot execute ${path}: the system refused to start it` };
}

type Interpreter = { readonly path: string; readonly source: string };

function readInterpreter(path: string): Interpreter | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = readAt(fd, 0, HEAD_BYTES);
    if (head.subarray(0, 2).toString('latin1') === '#!') {
      const line = head.subarray(2).toString('latin1').split('\n', 1)[0] ?? '';
      const program = line.trim().split(/[ \t]/, 1)[0];
      return program ? { path: program, source: 'from its #! line' } : undefined;
    }
    if (head.subarray(0, 4).toString('latin1') === ELF_MAGIC) {
      const loader = readElfInterpreter(fd, head);
      return loader === undefined ? undefined : { path: loader, source: 'its ELF dynamic loader; built for another libc?' };
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

// Walks the program headers for PT_INTERP (see elf(5)); offsets differ between
// 32- and 64-bit files, and byte order comes from e_ident[EI_DATA].
function readElfInterpreter(fd: number, head: Buffer): string | undefined {
  const is64 = head[4] === 2;
  const littleEndian = head[5] === 1;
  const u16 = (buffer: Buffer, offset: number) => (littleEndian ? buffer.readUInt16LE(offset) : buffer.readUInt16BE(offset));
  const u32 = (buffer: Buffer, offset: number) => (littleEndian ? buffer.readUInt32LE(offset) : buffer.readUInt32BE(offset));
  const word = (buffer: Buffer, offset: number) =>
    is64 ? Number(littleEndian ? buffer.readBigUInt64LE(offset) : buffer.readBigUInt64BE(offset)) : u32(buffer, offset);

  const phOffset = word(head, is64 ? 0x20 : 0x1c);
  const phEntrySize = u16(head, is64 ? 0x36 : 0x2a);
  const phCount = u16(head, is64 ? 0x38 : 0x2c);
  const table = readAt(fd, phOffset, phEntrySize * phCount);
  for (let index = 0; index < phCount; index += 1) {
    const entry = index * phEntrySize;
    if (u32(table, entry) !== PT_INTERP) continue;
    const offset = word(table, entry + (is64 ? 0x08 : 0x04));
    const size = Math.min(word(table, entry + (is64 ? 0x20 : 0x10)), MAX_INTERPRETER_BYTES);
    return readAt(fd, offset, size).toString('latin1').replace(/\0.*$/s, '');
  }
  return undefined;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const bytesRead = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
