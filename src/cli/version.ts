// Kept here rather than read from package.json at run time, which the bundle
// does not carry; a test keeps the two equal.
export const VERSION = '0.1.0';
