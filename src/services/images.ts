import { diffImage } from '../detection/detect.js'
import { notFound } from '../vocabulary/errors.js'
import type { Db } from '../store/db.js'
import { changeScreenshots } from '../store/screenshots.js'

export type ChangeImage = 'before' | 'after' | 'diff'

/** A change's screenshot before or after, or both side by side with its changed regions marked. */
export async function changeImage (db: Db, changeId: string, which: ChangeImage, orgId?: string): Promise<Buffer> {
  const shots = await changeScreenshots(db, changeId, orgId)
  if (!shots) throw notFound('Change')
  const { before, after } = shots
  let image: Buffer | undefined
  if (which === 'before') image = before?.image
  else if (which === 'after') image = after?.image
  else if (before && after) image = diffImage(before.image, after.image, shots.diffData.visual?.regions ?? [])
  if (!image) throw notFound(`The ${which} screenshot of this change`)
  return image
}
