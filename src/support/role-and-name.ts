// A process named by its role and its name in a sentence: "app export-job",
// "init step migrate". The app a command line gives is named "app" unless
// told otherwise, and "app app exited" read as a stutter: a name that only
// repeats its role is "the app".

/** "ROLE NAME", or "the ROLE" when the name is the role's own word. */
export function roleAndName(role: string, name: string): string {
  return name === role ? `the ${role}` : `${role} ${name}`;
}
