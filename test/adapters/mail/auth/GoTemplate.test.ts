import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as GoTemplate from "../../../../adapters/mail/auth/GoTemplate.js"

const html = (source: string, data: unknown) =>
  GoTemplate.renderHtml(Either.getOrThrow(GoTemplate.parse(source)), data)
const text = (source: string, data: unknown) =>
  GoTemplate.renderText(Either.getOrThrow(GoTemplate.parse(source)), data)

describe("GoTemplate", () => {
  it("prints fields and nested data, HTML-escaped in HTML and as they are in text", () => {
    const data = {
      Email: "a&b@example.com",
      Data: { name: "<Ada>", lang: "fr" },
      ConfirmationURL: "https://x/verify?a=1&b=2"
    }
    expect(html('<a href="{{ .ConfirmationURL }}">{{.Email}}</a> {{ .Data.name }}', data)).toBe(
      '<a href="https://x/verify?a=1&amp;b=2">a&amp;b@example.com</a> &lt;Ada&gt;'
    )
    expect(text("{{ .Email }} {{ .Data.name }}", data)).toBe("a&b@example.com <Ada>")
    expect(html("{{ .Missing }}|{{ .Data.missing }}|{{ .Email.deeper }}", data)).toBe("||")
    expect(html(`{{ .Quote }}`, { Quote: `"it's"` })).toBe("&#34;it&#39;s&#34;")
    expect(html("{{ .N }} {{ .B }}", { N: 42, B: true })).toBe("42 true")
  })

  it("chooses branches with Go's truth, else if, else and not", () => {
    const source = "{{ if .Data.vip }}VIP{{ else if not .Token }}link{{ else }}code {{ .Token }}{{ end }}"
    expect(html(source, { Data: { vip: true }, Token: "123" })).toBe("VIP")
    expect(html(source, { Data: { vip: false }, Token: "" })).toBe("link")
    expect(html(source, { Data: {}, Token: "123" })).toBe("code 123")
    for (const falsy of [false, 0, "", null, [], {}])
      expect(html("{{ if .X }}y{{ else }}n{{ end }}", { X: falsy })).toBe("n")
    for (const truthy of [true, 1, "x", [0], { a: 1 }])
      expect(html("{{ if .X }}y{{ end }}", { X: truthy })).toBe("y")
    expect(html("{{ if .A }}{{ if .B }}ab{{ else }}a{{ end }}{{ end }}", { A: 1, B: 0 })).toBe("a")
  })

  it("trims whitespace beside {{- and -}}, and drops comments", () => {
    expect(html("<p>\n  {{- .X -}}  \n</p>", { X: "x" })).toBe("<p>x</p>")
    expect(html("a {{/* a comment */}}b", {})).toBe("a b")
  })

  it("refuses what it does not render, saying where", () => {
    for (const source of [
      "{{ range .Items }}x{{ end }}",
      "{{ .A | printf }}",
      "{{ if eq .A 1 }}x{{ end }}",
      "{{ with .A }}x{{ end }}",
      "{{ if .A }}never closed",
      "{{ end }}",
      "{{ else }}",
      "unclosed {{ .A ",
      "{{ $x := .A }}"
    ]) {
      expect(Either.isLeft(GoTemplate.parse(source))).toBe(true)
    }
    expect(GoTemplate.parse("a {{ range .Items }}")).toEqual(
      Either.left('unsupported action "{{ range .Items }}" at 2')
    )
  })
})
