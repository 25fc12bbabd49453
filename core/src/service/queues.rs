//! Queues and their chatbot menus (`/queue`, `/chatbot`; spec 2 "Queues", §5).
//!
//! Every user of the company lists and reads queues (inbox filters, transfers); the
//! administration section ([`Action::ManageQueues`]) creates, edits and deletes them and their
//! chatbot options. The rules are [`crate::queue::validate_queue_input`] and
//! [`crate::queue::validate_chatbot`]; the plan's `queues` caps how many a company has.
//!
//! Every write emits `company-{id}-queue` ([`queue_event`], [`queue_deleted_event`]), appended by
//! the store in the write's transaction. The `/chatbot` calls edit one option of a queue's tree:
//! the use case rebuilds the tree and the store replaces it in one transaction, as `PUT /queue`
//! does (two admins editing the same menu at once: the last write wins).

use crate::error::{ErrorCode, Result};
use crate::events::{Event, SaveAction};
use crate::identity::Actor;
use crate::ids::{QueueId, TenantScope, UserId};
use crate::policy::{Action, authorize};
use crate::queue::{
    ChatbotId, ChatbotNode, ChatbotOption, ChatbotOptionType, Queue, QueueContext, QueueInput,
    count_options, default_schedules, find_path, option_at, siblings_at_mut, validate_chatbot,
    validate_queue_input,
};
use crate::service::Ports;
use crate::settings::{ScheduleType, SettingsView, to_map};

/// The code a create gets when the plan allows no more queues (403).
pub const QUEUE_LIMIT_CODE: ErrorCode = ErrorCode::ERR_QUEUE_LIMIT_REACHED;

/// `company-{id}-queue` `{action: "create"|"update", queue}` for the whole company.
pub fn queue_event(action: SaveAction, queue: &Queue) -> Event {
    Event::QueueSaved {
        action,
        queue: Box::new(queue.clone()),
    }
}

/// `company-{id}-queue` `{action: "delete", queueId}` for the whole company.
pub fn queue_deleted_event(id: QueueId) -> Event {
    Event::QueueDeleted { queue_id: id }
}

/// The company's queues with their chatbot menus, in their order (`GET /queue`): any user of
/// the company.
#[tracing::instrument(level = "debug", name = "queues::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(ports: &Ports, actor: &Actor) -> Result<Vec<Queue>> {
    authorize(actor, &Action::ListUsersBrief(actor.company_id))?;
    ports.queues.list_queues(actor.scope()).await
}

/// One queue (`GET /queue/{id}`): any user of the company; `ERR_NOT_FOUND` when it is not the
/// company's.
#[tracing::instrument(level = "debug", name = "queues::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, queue = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: QueueId) -> Result<Queue> {
    authorize(actor, &Action::ListUsersBrief(actor.company_id))?;
    ports
        .queues
        .get_queue(actor.scope(), id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Trims the texts of an option tree.
fn trimmed_option(option: &ChatbotOption) -> ChatbotOption {
    ChatbotOption {
        name: option.name.trim().to_owned(),
        greeting_message: option.greeting_message.trim().to_owned(),
        options: option.options.iter().map(trimmed_option).collect(),
        ..option.clone()
    }
}

fn trimmed(input: &QueueInput) -> QueueInput {
    QueueInput {
        name: input.name.trim().to_owned(),
        color: input.color.trim().to_owned(),
        greeting_message: input.greeting_message.trim().to_owned(),
        out_of_hours_message: input.out_of_hours_message.trim().to_owned(),
        chatbots: input.chatbots.iter().map(trimmed_option).collect(),
        ..input.clone()
    }
}

fn referenced_users(options: &[ChatbotOption], into: &mut Vec<UserId>) {
    for option in options {
        if option.queue_type == ChatbotOptionType::Attendant
            && let Some(id) = option.opt_user_id
            && !into.contains(&id)
        {
            into.push(id);
        }
        referenced_users(&option.options, into);
    }
}

/// What the rules read about the company: its queues, the users the options name that are
/// its own, and the `scheduleType` setting.
struct Known {
    queue_ids: Vec<QueueId>,
    user_ids: Vec<UserId>,
    schedule_type_queue: bool,
}

impl Known {
    async fn load(ports: &Ports, scope: TenantScope, options: &[ChatbotOption]) -> Result<Self> {
        let queue_ids = ports
            .queues
            .list(scope)
            .await?
            .into_iter()
            .map(|q| q.id)
            .collect();
        let mut named = Vec::new();
        referenced_users(options, &mut named);
        let mut user_ids = Vec::new();
        for id in named {
            if ports.users.get(scope, id).await?.is_some() {
                user_ids.push(id);
            }
        }
        let stored = to_map(&ports.settings.company_settings(scope).await?);
        Ok(Self {
            queue_ids,
            user_ids,
            schedule_type_queue: SettingsView::new(&stored).schedule_type() == ScheduleType::Queue,
        })
    }

    fn context(&self, except: Option<QueueId>) -> QueueContext<'_> {
        QueueContext {
            queue_ids: &self.queue_ids,
            user_ids: &self.user_ids,
            schedule_type_queue: self.schedule_type_queue,
            other_queues: self
                .queue_ids
                .iter()
                .filter(|id| Some(**id) != except)
                .count(),
        }
    }
}

async fn check_plan_room(ports: &Ports, scope: TenantScope, count: usize) -> Result<()> {
    let plan = crate::service::companies::plan_of(ports, scope).await?;
    if i64::try_from(count).unwrap_or(i64::MAX) >= plan.queues {
        return Err(crate::Error::with_detail(
            QUEUE_LIMIT_CODE,
            "the plan allows no more queues",
        ));
    }
    Ok(())
}

/// Creates a queue with its chatbot menu (`POST /queue`): admins; the rules of
/// [`validate_queue_input`]; the plan's queue limit; schedules default to
/// [`default_schedules`].
#[tracing::instrument(level = "debug", name = "queues::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: &QueueInput) -> Result<Queue> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    let scope = actor.scope();
    let mut input = trimmed(input);
    let known = Known::load(ports, scope, &input.chatbots).await?;
    validate_queue_input(&input, &known.context(None))?;
    check_plan_room(ports, scope, known.queue_ids.len()).await?;
    if input.schedules.is_none() {
        input.schedules = Some(default_schedules());
    }
    ports.queues.create_queue(scope, &input).await
}

/// Replaces a queue and its chatbot menu (`PUT /queue/{id}`): admins; `ERR_NOT_FOUND` when it is
/// not the company's. Options sent with their ids keep them; the others are new; stored options
/// not sent are deleted.
#[tracing::instrument(level = "debug", name = "queues::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, queue = id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    id: QueueId,
    input: &QueueInput,
) -> Result<Queue> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    let scope = actor.scope();
    let input = trimmed(input);
    let known = Known::load(ports, scope, &input.chatbots).await?;
    if !known.queue_ids.contains(&id) {
        return Err(ErrorCode::ERR_NOT_FOUND.into());
    }
    validate_queue_input(&input, &known.context(Some(id)))?;
    ports
        .queues
        .update_queue(scope, id, &input)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Deletes a queue and its chatbot menu (`DELETE /queue/{id}`): admins; tickets keep existing
/// without a queue. `ERR_NOT_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "queues::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, queue = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: QueueId) -> Result<()> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    if ports.queues.delete_queue(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NOT_FOUND.into())
    }
}

/// A chatbot option located in its queue: the queue and the path of indices to the option.
struct Located {
    queue: Queue,
    path: Vec<usize>,
}

async fn locate(ports: &Ports, scope: TenantScope, id: ChatbotId) -> Result<Located> {
    let not_found = || crate::Error::from(ErrorCode::ERR_NOT_FOUND);
    let queue_id = ports
        .queues
        .chatbot_queue(scope, id)
        .await?
        .ok_or_else(not_found)?;
    let queue = ports
        .queues
        .get_queue(scope, queue_id)
        .await?
        .ok_or_else(not_found)?;
    let path = find_path(&queue.chatbots, id).ok_or_else(not_found)?;
    Ok(Located { queue, path })
}

/// The node at `path` of `queue`, with its parent.
fn node_at(queue: &Queue, path: &[usize]) -> Result<ChatbotNode> {
    let option = option_at(&queue.chatbots, path).ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let parent_id = match path.split_last() {
        Some((_, parent)) if !parent.is_empty() => {
            option_at(&queue.chatbots, parent).and_then(|p| p.id)
        }
        _ => None,
    };
    Ok(ChatbotNode {
        queue_id: queue.id,
        parent_id,
        option: option.clone(),
    })
}

/// The input of a queue's tree once edited, checked as a whole (a parent that now opens a next
/// level needs its message; the limits).
fn check_tree(queue: &Queue, chatbots: &[ChatbotOption], known: &Known) -> Result<()> {
    let input = QueueInput {
        name: queue.name.clone(),
        color: queue.color.clone(),
        order_queue: queue.order_queue,
        greeting_message: queue.greeting_message.clone(),
        out_of_hours_message: queue.out_of_hours_message.clone(),
        close_ticket: queue.close_ticket,
        ativar_roteador: queue.ativar_roteador,
        tempo_roteador: queue.tempo_roteador,
        integration_id: queue.integration_id,
        file_list_id: queue.file_list_id,
        schedules: None,
        chatbots: chatbots.to_vec(),
    };
    // Only the menu is being changed: the queue's own fields are not judged again.
    let ctx = QueueContext {
        schedule_type_queue: false,
        other_queues: 0,
        ..known.context(Some(queue.id))
    };
    match validate_queue_input(&input, &ctx) {
        Err(e) if e.code == ErrorCode::ERR_VALIDATION => {
            let fields: Vec<_> = e
                .fields
                .into_iter()
                .filter(|f| f.field.starts_with("chatbots"))
                .collect();
            if fields.is_empty() {
                Ok(())
            } else {
                Err(crate::Error::validation(fields))
            }
        }
        _ => Ok(()),
    }
}

/// Strips the ids of an option tree (the options are new).
fn without_ids(option: &ChatbotOption) -> ChatbotOption {
    ChatbotOption {
        id: None,
        options: option.options.iter().map(without_ids).collect(),
        ..option.clone()
    }
}

/// One chatbot option with its nested options (`GET /chatbot/{id}`): any user of the company;
/// `ERR_NOT_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "queues::get_chatbot", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, chatbot = id.0))]
pub async fn get_chatbot(ports: &Ports, actor: &Actor, id: ChatbotId) -> Result<ChatbotNode> {
    authorize(actor, &Action::ListUsersBrief(actor.company_id))?;
    let located = locate(ports, actor.scope(), id).await?;
    node_at(&located.queue, &located.path)
}

/// Appends an option (with its sub-options) to a queue's menu or to one option's sub-options
/// (`POST /chatbot`): admins; `ERR_NOT_FOUND` when the queue or the parent is not the
/// company's (or the parent is in another queue).
#[tracing::instrument(level = "debug", name = "queues::create_chatbot", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create_chatbot(
    ports: &Ports,
    actor: &Actor,
    node: &ChatbotNode,
) -> Result<ChatbotNode> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    let scope = actor.scope();
    let option = without_ids(&trimmed_option(&node.option));
    let queue = ports
        .queues
        .get_queue(scope, node.queue_id)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let parent_path = match node.parent_id {
        None => Vec::new(),
        Some(parent) => find_path(&queue.chatbots, parent).ok_or(ErrorCode::ERR_NOT_FOUND)?,
    };
    let known = Known::load(ports, scope, std::slice::from_ref(&option)).await?;
    let ctx = known.context(Some(queue.id));
    validate_chatbot(
        &option,
        parent_path.len() + 1,
        count_options(&queue.chatbots),
        &ctx,
    )?;
    let mut chatbots = queue.chatbots.clone();
    let siblings = if parent_path.is_empty() {
        &mut chatbots
    } else {
        // The parent's sub-options: the list one level below the parent.
        let parent_siblings =
            siblings_at_mut(&mut chatbots, &parent_path).ok_or(ErrorCode::ERR_NOT_FOUND)?;
        let index = *parent_path.last().ok_or(ErrorCode::ERR_NOT_FOUND)?;
        &mut parent_siblings
            .get_mut(index)
            .ok_or(ErrorCode::ERR_NOT_FOUND)?
            .options
    };
    siblings.push(option);
    let mut path = parent_path;
    path.push(siblings.len() - 1);
    check_tree(&queue, &chatbots, &known)?;
    let saved = ports
        .queues
        .replace_chatbots(scope, queue.id, &chatbots)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    node_at(&saved, &path)
}

/// Replaces one option and its sub-options (`PUT /chatbot/{id}`): admins. Sub-options sent with
/// the id of one of this option's sub-options keep it; the others are new; the rest are
/// deleted. The option stays where it is in its menu.
#[tracing::instrument(level = "debug", name = "queues::update_chatbot", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, chatbot = id.0))]
pub async fn update_chatbot(
    ports: &Ports,
    actor: &Actor,
    id: ChatbotId,
    option: &ChatbotOption,
) -> Result<ChatbotNode> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    let scope = actor.scope();
    let Located { queue, path } = locate(ports, scope, id).await?;
    let current = option_at(&queue.chatbots, &path).ok_or(ErrorCode::ERR_NOT_FOUND)?;
    // Ids inside the sent subtree keep only when they are already in this option's subtree.
    let mut own = Vec::new();
    collect_ids(&current.options, &mut own);
    let mut option = keep_ids_in(&trimmed_option(option), &own);
    option.id = Some(id);
    let known = Known::load(ports, scope, std::slice::from_ref(&option)).await?;
    let ctx = known.context(Some(queue.id));
    let others = count_options(&queue.chatbots) - count_options(std::slice::from_ref(current));
    validate_chatbot(&option, path.len(), others, &ctx)?;
    let mut chatbots = queue.chatbots.clone();
    let index = *path.last().ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let slot = siblings_at_mut(&mut chatbots, &path)
        .and_then(|s| s.get_mut(index))
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    *slot = option;
    check_tree(&queue, &chatbots, &known)?;
    let saved = ports
        .queues
        .replace_chatbots(scope, queue.id, &chatbots)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    node_at(&saved, &path)
}

fn collect_ids(options: &[ChatbotOption], into: &mut Vec<ChatbotId>) {
    for option in options {
        if let Some(id) = option.id {
            into.push(id);
        }
        collect_ids(&option.options, into);
    }
}

fn keep_ids_in(option: &ChatbotOption, allowed: &[ChatbotId]) -> ChatbotOption {
    ChatbotOption {
        id: option.id.filter(|id| allowed.contains(id)),
        options: option
            .options
            .iter()
            .map(|o| keep_ids_in(o, allowed))
            .collect(),
        ..option.clone()
    }
}

/// Deletes one option and its sub-options (`DELETE /chatbot/{id}`): admins; `ERR_NOT_FOUND`
/// when it is not the company's.
#[tracing::instrument(level = "debug", name = "queues::delete_chatbot", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, chatbot = id.0))]
pub async fn delete_chatbot(ports: &Ports, actor: &Actor, id: ChatbotId) -> Result<()> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    let scope = actor.scope();
    let Located { queue, path } = locate(ports, scope, id).await?;
    let mut chatbots = queue.chatbots.clone();
    let index = *path.last().ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let siblings = siblings_at_mut(&mut chatbots, &path).ok_or(ErrorCode::ERR_NOT_FOUND)?;
    if index >= siblings.len() {
        return Err(ErrorCode::ERR_NOT_FOUND.into());
    }
    siblings.remove(index);
    ports
        .queues
        .replace_chatbots(scope, queue.id, &chatbots)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    Ok(())
}
