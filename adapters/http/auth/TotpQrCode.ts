import { correction, generate } from "lean-qr"
import { toSvgSource } from "lean-qr/extras/svg"

/**
 * The `qr_code` of a TOTP enrolment: an SVG document of the `otpauth://` URI, at error
 * correction H and 3 pixels per module as Supabase Auth draws it. auth-js puts the markup after
 * `data:image/svg+xml;utf-8,` without percent-encoding it, so it must hold no `#` (a fragment
 * would cut the image) and no `%`: colours are named, never hex (docs/decisions/0015).
 */
export const svg = (uri: string): string =>
  toSvgSource(generate(uri, { minCorrectionLevel: correction.H }), {
    on: "black",
    off: "white",
    scale: 3,
    xmlDeclaration: false
  })
