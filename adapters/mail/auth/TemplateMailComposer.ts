import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { convert } from "html-to-text"
import { MailComposer } from "../../../application/auth/ports/MailComposer.js"
import type { Kind } from "../../../domain/auth/Mail.js"
import * as BuiltInTemplates from "./BuiltInTemplates.js"
import * as GoTemplate from "./GoTemplate.js"
import * as RemoteTemplates from "./RemoteTemplates.js"

export interface ComposerSettings {
  /** `MAILER_SUBJECTS_<KIND>` that are set, as written (Go template syntax). */
  readonly subjects: Partial<Record<Kind, string>>
  /** `MAILER_TEMPLATES_<KIND>` that are set, and how they are fetched (RemoteTemplates). */
  readonly templates: RemoteTemplates.RemoteTemplateOptions
}

interface Compiled {
  readonly subject: GoTemplate.Template
  readonly html: GoTemplate.Template
  readonly text: GoTemplate.Template
}

const compile = (source: string, what: string): GoTemplate.Template =>
  Either.getOrElse(GoTemplate.parse(source), (error) => {
    // The built-in templates are ours and parse; a test renders every one of them.
    throw new Error(`${what} does not parse: ${error}`)
  })

/**
 * Mail rendered from the configured subjects and templates (`MAILER_TEMPLATES_<KIND>`, an HTML
 * template at a URL: its text part is the rendered HTML as text, with html-to-text), else the
 * built-in bodies. A subject set in the configuration was checked at start (`parseSubject`);
 * the built-in bodies are compiled once here. Subjects and text parts render values as they
 * are, HTML bodies HTML-escaped.
 */
export const layer = (settings: ComposerSettings) =>
  Layer.effect(
    MailComposer,
    Effect.gen(function* () {
      const remote = yield* RemoteTemplates.make(settings.templates)
      const compiled = new Map<Kind, Compiled>()
      const templatesOf = (kind: Kind): Compiled => {
        let found = compiled.get(kind)
        if (found === undefined) {
          const builtIn = BuiltInTemplates.builtIn[kind]
          found = {
            subject: compile(
              settings.subjects[kind] ?? BuiltInTemplates.defaultSubjects[kind],
              `the ${kind} subject`
            ),
            html: compile(builtIn.html, `the built-in ${kind} HTML`),
            text: compile(builtIn.text, `the built-in ${kind} text`)
          }
          compiled.set(kind, found)
        }
        return found
      }
      return {
        compose: (message) =>
          Effect.map(remote.get(message.kind), (custom) => {
            const templates = templatesOf(message.kind)
            // One line: a subject with a line break would let a value inject mail headers.
            const subject = GoTemplate.renderText(templates.subject, message.variables)
              .replace(/[\r\n]+/g, " ")
              .trim()
            return Option.match(custom, {
              onNone: () => ({
                to: message.to,
                subject,
                html: GoTemplate.renderHtml(templates.html, message.variables),
                text: GoTemplate.renderText(templates.text, message.variables)
              }),
              onSome: (template) => {
                const html = GoTemplate.renderHtml(template, message.variables)
                return { to: message.to, subject, html, text: convert(html, { wordwrap: 100 }) }
              }
            })
          })
      }
    })
  )

/** A `MAILER_SUBJECTS_<KIND>` value checked at start: its syntax error, or nothing. */
export const parseSubject = (source: string): Either.Either<string, string> =>
  Either.map(GoTemplate.parse(source), () => source)
