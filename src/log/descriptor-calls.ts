import { close, fstat, ftruncate, open, type Stats, write } from 'node:fs';

// The few calls on a descriptor the termination message makes, as promises
// over node:fs's callback API (served by libuv's thread pool, as
// node:fs/promises is). Not node:fs/promises itself: it loads the readline,
// file-stream and stream modules with it, about thirty compiled from source
// under --jitless (the executable's flag), for five calls made at the exit.

/** Settles a promise from a Node callback: (error) or (null, value). */
function settle<T>(resolve: (value: T) => void, reject: (error: Error) => void) {
  return (error: Error | null, value: T): void => (error === null ? resolve(value) : reject(error));
}

export function openDescriptor(path: string, flags: number, mode: number): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, mode, settle(resolve, reject)));
}

export function closeDescriptor(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (error) => (error === null ? resolve() : reject(error))));
}

export function statDescriptor(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, settle(resolve, reject)));
}

export function truncateDescriptor(fd: number, length: number): Promise<void> {
  return new Promise((resolve, reject) => ftruncate(fd, length, (error) => (error === null ? resolve() : reject(error))));
}

/** Writes bytes[offset, offset + length) at `position` of the file; resolves with how many were written. */
export function writeDescriptor(fd: number, bytes: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => write(fd, bytes, offset, length, position, settle(resolve, reject)));
}
