const entities: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;"
}

/** Text made safe for HTML element content and quoted attribute values. */
export const escapeText = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c] ?? c)
