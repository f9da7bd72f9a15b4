import type { ParsedMail } from "mailparser"
import type { SmtpCatcher } from "./SmtpCatcher.js"

/**
 * The first `count` mails the catcher took for `to`, waiting for the outbox's worker to deliver
 * them (30 s at most: the test fails then, whatever the reason).
 */
export const mailsTo = async (
  catcher: SmtpCatcher,
  to: string,
  count: number
): Promise<ReadonlyArray<ParsedMail>> => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const caught = catcher.caught.filter((entry) => entry.to.includes(to))
    if (caught.length >= count) return caught.slice(0, count).map((entry) => entry.mail)
    if (Date.now() > deadline) throw new Error(`fewer than ${count} mails to ${to}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The first mail the catcher took for `to`. */
export const mailTo = async (catcher: SmtpCatcher, to: string): Promise<ParsedMail> => {
  const [mail] = await mailsTo(catcher, to, 1)
  if (mail === undefined) throw new Error(`no mail to ${to}`)
  return mail
}

/** The /verify link and the code of a mail's text part, as the built-in templates write them. */
export const linkAndCode = (text: string | undefined) => {
  const link = /(https?:\/\/\S+\/verify\?\S+)/.exec(text ?? "")?.[1]
  const code = /Or enter this code: (\d+)/.exec(text ?? "")?.[1]
  if (link === undefined || code === undefined) throw new Error(`no link or code in ${text}`)
  return { link: new URL(link), code }
}

/** The parameters of a redirect's fragment. */
export const fragmentOf = (location: string | null) =>
  new URLSearchParams(new URL(location ?? "").hash.slice(1))
