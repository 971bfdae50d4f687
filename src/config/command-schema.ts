import * as z from 'zod';

export const CommandSchema = z.union([z.string(), z.array(z.string()).min(1)]).meta({
  description: 'A string split into words like a shell does (quotes honoured, no shell run), or the argv as a list.',
});
