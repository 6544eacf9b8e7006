# The floor under selection (src/select/floor.hpp) ships inside the library: data/floor-h200.json becomes a string in
# a generated source, so an installed program needs no data file. Editing the JSON re-runs the configure step.
set(TW_FLOOR_JSON_FILE ${PROJECT_SOURCE_DIR}/data/floor-h200.json)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TW_FLOOR_JSON_FILE})
file(READ ${TW_FLOOR_JSON_FILE} TW_FLOOR_JSON)
if(TW_FLOOR_JSON MATCHES "\\)tilewise_floor\"")
  message(FATAL_ERROR "${TW_FLOOR_JSON_FILE} holds the raw string's closing delimiter")
endif()
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/generated/floor_data.cpp
     CONTENT "// Generated from data/floor-h200.json by cmake/floor_data.cmake: do not edit.\nnamespace tilewise::select {\nextern const char* const shipped_floor_json;\nconst char* const shipped_floor_json = R\"tilewise_floor(@TW_FLOOR_JSON@)tilewise_floor\";\n}  // namespace tilewise::select\n"
     @ONLY)
