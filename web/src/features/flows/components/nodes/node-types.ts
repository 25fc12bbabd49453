/** Node components by wire type, at module scope so React Flow keeps them stable. */
import type { NodeTypes } from '@xyflow/react';
import {
  AudioNode,
  ConditionNode,
  ContentNode,
  ImgNode,
  IntervalNode,
  MenuNode,
  MessageNode,
  OpenAiNode,
  QuestionNode,
  RandomizerNode,
  SingleBlockNode,
  StartNode,
  TicketNode,
  TypebotNode,
  VideoNode,
} from './FlowNodes';

export const nodeTypes: NodeTypes = {
  start: StartNode,
  message: MessageNode,
  interval: IntervalNode,
  img: ImgNode,
  image: ImgNode,
  audio: AudioNode,
  video: VideoNode,
  menu: MenuNode,
  randomizer: RandomizerNode,
  condition: ConditionNode,
  question: QuestionNode,
  content: ContentNode,
  ticket: TicketNode,
  typebot: TypebotNode,
  openai: OpenAiNode,
  singleBlock: SingleBlockNode,
};
