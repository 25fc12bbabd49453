/** An icon per node type, for the speed dial and the node headers. */
import type { SvgIconComponent } from '@mui/icons-material';
import AccessTimeIcon from '@mui/icons-material/AccessTime';
import AltRouteIcon from '@mui/icons-material/AltRoute';
import ArticleIcon from '@mui/icons-material/Article';
import CallSplitIcon from '@mui/icons-material/CallSplit';
import ConfirmationNumberIcon from '@mui/icons-material/ConfirmationNumber';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import ImageIcon from '@mui/icons-material/Image';
import ListIcon from '@mui/icons-material/List';
import MessageIcon from '@mui/icons-material/Message';
import MicIcon from '@mui/icons-material/Mic';
import PsychologyIcon from '@mui/icons-material/Psychology';
import RocketLaunchIcon from '@mui/icons-material/RocketLaunch';
import SmartToyIcon from '@mui/icons-material/SmartToy';
import VideocamIcon from '@mui/icons-material/Videocam';
import ViewModuleIcon from '@mui/icons-material/ViewModule';

export const NODE_ICONS: Record<string, SvgIconComponent> = {
  start: RocketLaunchIcon,
  message: MessageIcon,
  interval: AccessTimeIcon,
  img: ImageIcon,
  audio: MicIcon,
  video: VideocamIcon,
  menu: ListIcon,
  randomizer: CallSplitIcon,
  question: HelpOutlineIcon,
  content: ArticleIcon,
  ticket: ConfirmationNumberIcon,
  typebot: SmartToyIcon,
  openai: PsychologyIcon,
  condition: AltRouteIcon,
  singleBlock: ViewModuleIcon,
};
