"""Domain errors, mapped to HTTP in one place (`main.py`).

AppError
  BadRequest           -> 400  (invalid input; AutoMem answers 400, not 422)
  Unauthorized         -> 401
  Forbidden            -> 403
  NotFound             -> 404  (MemoryNotFound)
  Conflict             -> 409  (stale expected_version)
  PayloadTooLarge      -> 413  (a /remember call over the size limits)
  UnsupportedMediaType -> 415  (an artifact type off the allow-list)
  RateLimited          -> 429  (with Retry-After)
  StoreUnavailable     -> 503  (FalkorDB / Qdrant down)
  ServiceUnavailable   -> 503  (a feature switched off)
"""


class AppError(Exception):
    status_code = 500
    code = "internal_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(AppError):
    status_code = 400
    code = "bad_request"


class Unauthorized(AppError):
    status_code = 401
    code = "unauthorized"


class Forbidden(AppError):
    status_code = 403
    code = "forbidden"


class NotFound(AppError):
    status_code = 404
    code = "not_found"


class MemoryNotFound(NotFound):
    def __init__(self, memory_id: str) -> None:
        super().__init__(f"Memory {memory_id} not found")
        self.memory_id = memory_id


class Conflict(AppError):
    status_code = 409
    code = "conflict"


class StoreUnavailable(AppError):
    status_code = 503
    code = "store_unavailable"


class ServiceUnavailable(AppError):
    status_code = 503
    code = "unavailable"


class PayloadTooLarge(AppError):
    status_code = 413
    code = "payload_too_large"


class UnsupportedMediaType(AppError):
    status_code = 415
    code = "unsupported_media_type"


class RateLimited(AppError):
    status_code = 429
    code = "rate_limited"

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
