"""An A2A v0.3 caller of the planner's face: the Python a2a-sdk 0.3.26 client, as its docs show it
(A2ACardResolver, ClientFactory, Client.send_message / resubscribe / get_task), driving the seed
plan: the first message, the reviewer's question answered on the same task and context, then the
deployer's approval relayed as auth-required, approved out of band while a resubscribe stream is
open, to completed.

Usage: client.py <face base URL> <bearer token> <JSONRPC|HTTP+JSON> [streaming|blocking]
       client.py <face base URL> <bearer token> <JSONRPC|HTTP+JSON> push <task id> <webhook URL>
The second form registers a webhook on the task (set_task_callback, then get_task_callback).
Prints one JSON object per line, one per step, for the tests (test/a2a-face-v03*.test.ts) to check.
Every wait is bounded: the whole run stops after 90 s.
"""

import asyncio
import json
import re
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    GetTaskPushNotificationConfigParams,
    Message,
    Part,
    PushNotificationConfig,
    Role,
    Task,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TextPart,
    TransportProtocol,
)

RUN_TIMEOUT_S = 90
# Blocking mode's tasks/get polls after the approval: at most 60 s.
POLLS = 240
POLL_INTERVAL_S = 0.25


def emit(step: str, **fields: object) -> None:
    print(json.dumps({'step': step, **fields}), flush=True)


def status_text(task: Task) -> str:
    message = task.status.message
    if message is None:
        return ''
    return ''.join(p.root.text for p in message.parts if isinstance(p.root, TextPart))


def describe(task: Task) -> dict:
    return {
        'id': task.id,
        'contextId': task.context_id,
        'kind': task.kind,
        'state': task.status.state.value,
        'text': status_text(task),
    }


def user_message(text: str, task_id: str | None = None, context_id: str | None = None) -> Message:
    return Message(
        role=Role.user,
        message_id=str(uuid.uuid4()),
        parts=[Part(root=TextPart(text=text))],
        task_id=task_id,
        context_id=context_id,
        metadata={'skill': 'release'},
    )


TERMINAL = {'completed', 'failed', 'canceled', 'rejected'}
# Where a turn ends: the caller must act (input-required), or the task waits on someone else
# (auth-required: message/stream stays open through it, the task resumes by itself), or it ended.
TURN_ENDS = {'input-required', 'auth-required', *TERMINAL}


async def last_task(events) -> Task:
    """The task as it is when the turn ends (streaming: (task, update) pairs; blocking: one pair).

    A stream that answers opens with the task as it is (still input-required, the question
    answered): the turn ends at a status update after it, not at that first Task.
    """
    task = None
    try:
        async for event in events:
            if isinstance(event, Message):
                raise RuntimeError(f'the face answered with a Message, not a Task: {event}')
            task, update = event
            if update is not None and update.kind == 'status-update' and task.status.state.value in TURN_ENDS:
                break
    finally:
        await events.aclose()
    if task is None:
        raise RuntimeError('the face answered nothing')
    return task


async def run(base: str, token: str, binding: str, mode: str) -> None:
    headers = {'Authorization': f'Bearer {token}'}
    async with httpx.AsyncClient(headers=headers, timeout=30.0) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        emit(
            'card',
            protocolVersion=card.protocol_version,
            url=card.url,
            preferredTransport=card.preferred_transport,
            additional=[{'url': i.url, 'transport': i.transport} for i in card.additional_interfaces or []],
            streaming=card.capabilities.streaming,
        )
        transport = TransportProtocol.jsonrpc if binding == 'JSONRPC' else TransportProtocol.http_json
        config = ClientConfig(
            httpx_client=http,
            supported_transports=[transport],
            use_client_preference=True,
            streaming=mode == 'streaming',
        )
        client = ClientFactory(config).create(card)

        first = await last_task(client.send_message(user_message('Release payments-api')))
        emit('asked', **describe(first))

        # The answer on the same task and context.
        answered = await last_task(client.send_message(user_message('main', first.id, first.context_id)))
        emit('answered', **describe(answered))
        match = re.search(r'https?://\S+/approve/[0-9a-f-]+', status_text(answered))
        if match is None:
            raise RuntimeError(f'no approval URL in: {status_text(answered)}')

        # Streaming: subscribe first, approve out of band second, and the stream carries the rest.
        # Blocking (the client then has no resubscribe): approve, then poll tasks/get.
        states: list[str] = []
        if mode == 'streaming':
            stream = client.resubscribe(TaskIdParams(id=first.id))
            first_event = await anext(stream)
            states.append(first_event[0].status.state.value)

            async def follow() -> None:
                async for _task, update in stream:
                    if update is not None and getattr(update, 'kind', None) == 'status-update':
                        states.append(update.status.state.value)

            following = asyncio.create_task(follow())
            (await http.post(match.group(0))).raise_for_status()
            await following
        else:
            (await http.post(match.group(0))).raise_for_status()
            for _ in range(POLLS):
                polled = await client.get_task(TaskQueryParams(id=first.id))
                if not states or states[-1] != polled.status.state.value:
                    states.append(polled.status.state.value)
                if polled.status.state.value in TERMINAL:
                    break
                await asyncio.sleep(POLL_INTERVAL_S)
        done = await client.get_task(TaskQueryParams(id=first.id))
        emit(
            'completed',
            streamStates=states,
            artifacts=[a.name for a in done.artifacts or []],
            historyKinds=sorted({m.kind for m in done.history or []}),
            historyLength=len(done.history or []),
            **describe(done),
        )


async def register_webhook(base: str, token: str, binding: str, task_id: str, webhook: str) -> None:
    async with httpx.AsyncClient(headers={'Authorization': f'Bearer {token}'}, timeout=30.0) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        transport = TransportProtocol.jsonrpc if binding == 'JSONRPC' else TransportProtocol.http_json
        client = ClientFactory(ClientConfig(httpx_client=http, supported_transports=[transport], use_client_preference=True)).create(card)
        config_id = f'py-{binding.lower().replace("+", "-")}'
        created = await client.set_task_callback(
            TaskPushNotificationConfig(
                task_id=task_id,
                push_notification_config=PushNotificationConfig(id=config_id, url=webhook, token=f'token-{config_id}'),
            )
        )
        emit('set', taskId=created.task_id, id=created.push_notification_config.id, url=created.push_notification_config.url)
        got = await client.get_task_callback(GetTaskPushNotificationConfigParams(id=task_id, push_notification_config_id=config_id))
        emit('get', taskId=got.task_id, id=got.push_notification_config.id, url=got.push_notification_config.url, token=got.push_notification_config.token)


def main() -> None:
    base, token, binding = sys.argv[1], sys.argv[2], sys.argv[3]
    mode = sys.argv[4] if len(sys.argv) > 4 else 'streaming'
    if mode == 'push':
        work = register_webhook(base, token, binding, sys.argv[5], sys.argv[6])
    else:
        work = run(base, token, binding, mode)
    asyncio.run(asyncio.wait_for(work, RUN_TIMEOUT_S))


if __name__ == '__main__':
    main()
