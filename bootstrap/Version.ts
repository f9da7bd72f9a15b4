/** The build's version, as package.json gives it (test/bootstrap/Version.test.ts keeps them equal). */
export const version = "0.1.0"
