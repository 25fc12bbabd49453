/** Media files of the media nodes and content elements: checked against the core's limits, then uploaded. */
import { isApiError } from '../../../../lib/api';
import type { FlowLimits } from '../../../../lib/wasm/rules';
import { uploadFlowMedia } from '../../api/flows';
import { compressImage, mediaProblem, type MediaType } from '../../utils/nodes';

/** Checks, compresses (images) and uploads one file; returns the stored name or null. */
export async function uploadOne(kind: MediaType, file: File, limits: FlowLimits, inContent: boolean, onProblem: (key: string) => void): Promise<string | null> {
  const problem = mediaProblem(kind, file, limits, inContent);
  if (problem) {
    onProblem(problem);
    return null;
  }
  const prepared = kind === 'img' ? await compressImage(file) : file;
  try {
    const [name] = await uploadFlowMedia(inContent ? 'content' : kind, [prepared]);
    return name ?? null;
  } catch (error) {
    // The server's verdict on type and size reads like the browser's own check.
    if (isApiError(error) && (error.code === 'ERR_FLOW_MEDIA_TOO_LARGE' || error.code === 'ERR_PAYLOAD_TOO_LARGE' || error.status === 413)) {
      onProblem(`flows.validation.${kind}TooLarge`);
      return null;
    }
    if (isApiError(error) && error.code === 'ERR_FLOW_MEDIA_TYPE') {
      onProblem(`flows.validation.${kind}Type`);
      return null;
    }
    throw error;
  }
}
